import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a tiny BERT-shaped feature-extraction model that transformers.js loads like any
 * sentence-transformer: config.json, tokenizer.json (WordPiece, lowercasing, [CLS]/[SEP]),
 * tokenizer_config.json and onnx/model.onnx. The ONNX graph is one embedding lookup,
 * last_hidden_state = Gather(embeddings, input_ids) with an [vocab x hidden] table, encoded here by
 * hand in the ONNX protobuf wire format. Mean pooling and normalisation happen in transformers.js,
 * as for a real model, so texts sharing words get similar vectors.
 */

// --- protobuf wire format -------------------------------------------------------------------
function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}
const key = (field: number, wire: number) => varint((field << 3) | wire);
const int = (field: number, n: number) => [...key(field, 0), ...varint(n)];
const bytes = (field: number, b: Uint8Array | number[]) => [...key(field, 2), ...varint(b.length), ...b];
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s, 'utf8')]);

const FLOAT = 1;
const INT64 = 7;

function tensor(name: string, dims: number[], data: Float32Array): number[] {
  return [
    ...dims.flatMap((d) => int(1, d)),
    ...int(2, FLOAT),
    ...str(8, name),
    ...bytes(9, new Uint8Array(data.buffer)),
  ];
}

function valueInfo(name: string, elemType: number, dims: (number | string)[]): number[] {
  const shape = dims.flatMap((d) => bytes(1, typeof d === 'number' ? int(1, d) : str(2, d)));
  const tensorType = [...int(1, elemType), ...bytes(2, shape)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

function node(op: string, inputs: string[], outputs: string[], name: string): number[] {
  return [
    ...inputs.flatMap((i) => str(1, i)),
    ...outputs.flatMap((o) => str(2, o)),
    ...str(3, name),
    ...str(4, op),
  ];
}

/** The ONNX model bytes: inputs input_ids, attention_mask, token_type_ids; output last_hidden_state. */
export function embeddingLookupModel(table: Float32Array, vocab: number, hidden: number): Uint8Array {
  const graph = [
    ...bytes(1, node('Gather', ['embeddings', 'input_ids'], ['last_hidden_state'], 'lookup')),
    ...str(2, 'tiny-bert'),
    ...bytes(5, tensor('embeddings', [vocab, hidden], table)),
    ...bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    ...bytes(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    ...bytes(11, valueInfo('token_type_ids', INT64, ['batch', 'sequence'])),
    ...bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])),
  ];
  const model = [
    ...int(1, 8),
    ...str(2, 'engram-test'),
    ...bytes(7, graph),
    ...bytes(8, [...str(1, ''), ...int(2, 13)]),
  ];
  return Uint8Array.from(model);
}

// --- the model directory ----------------------------------------------------------------------
export const TINY_HIDDEN = 16;

/** Writes the model into `dir` (created); `words` is the vocabulary besides the special tokens. */
export function writeTinyModel(dir: string, words: readonly string[]): void {
  const tokens = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', ...words];
  const vocab = Object.fromEntries(tokens.map((t, i) => [t, i]));
  // Deterministic pseudo-random table; special tokens get zero rows so they do not dominate pooling.
  const table = new Float32Array(tokens.length * TINY_HIDDEN);
  let seed = 12345;
  for (let i = 4 * TINY_HIDDEN; i < table.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    table[i] = seed / 2 ** 30 - 1;
  }
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), embeddingLookupModel(table, tokens.length, TINY_HIDDEN));
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      hidden_size: TINY_HIDDEN,
      vocab_size: tokens.length,
      architectures: ['BertModel'],
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 128,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
    }),
  );
  const special = (t: string) => ({
    id: vocab[t],
    content: t,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  writeFileSync(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]'].map(special),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
        ],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [vocab['[CLS]']], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [vocab['[SEP]']], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab,
      },
    }),
  );
}
