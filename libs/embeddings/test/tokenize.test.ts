import assert from 'node:assert/strict';
import { tokenize } from '../src/index.ts';

const show = (text: string) =>
  tokenize(text).map((t) =>
    t.role === 'part' ? `(${t.text})` : t.kind === 'compound' ? `[${t.text}]` : t.text,
  );

describe('tokenize', () => {
  it('lowercases words and keeps codes and numbers', () => {
    assert.deepEqual(show('The deploy failed: E1234, retry 3 times.'), [
      'the',
      'deploy',
      'failed',
      'e1234',
      'retry',
      '3',
      'times',
    ]);
  });

  it('keeps identifiers, paths, versions and addresses whole, plus their pieces', () => {
    assert.deepEqual(show('ERR_CONN_RESET'), ['[err_conn_reset]', '(err)', '(conn)', '(reset)']);
    assert.deepEqual(show('see src/db/pool.ts.'), [
      'see',
      '[src/db/pool.ts]',
      '(src)',
      '(db)',
      '(pool)',
      '(ts)',
    ]);
    assert.deepEqual(show('v1.9.0'), ['[v1.9.0]', '(v1)', '(9)', '(0)']);
    assert.deepEqual(show('ops@example.com'), ['[ops@example.com]', '(ops)', '(example)', '(com)']);
  });

  it('splits camelCase and acronym boundaries', () => {
    assert.deepEqual(show('PaymentService'), ['[paymentservice]', '(payment)', '(service)']);
    assert.deepEqual(show('HTTPServer'), ['[httpserver]', '(http)', '(server)']);
    assert.deepEqual(show('ALLCAPS lower Title'), ['allcaps', 'lower', 'title']);
  });

  it('drops leading and trailing joiners and punctuation', () => {
    assert.deepEqual(show('__init__ ...a.. -b- (c)'), ['init', 'a', 'b', 'c']);
  });

  it('handles any script and applies NFKC', () => {
    assert.deepEqual(show('Größe café Привет ﬁle ＡＢＣ１２３'), [
      'größe',
      'café',
      'привет',
      'file',
      'abc123',
    ]);
  });

  it('turns CJK runs into character bigrams', () => {
    assert.deepEqual(show('我喜欢蓝色'), ['我喜', '喜欢', '欢蓝', '蓝色']);
    assert.deepEqual(show('東京タワー'), ['東京', '京タ', 'タワ', 'ワー']);
    assert.deepEqual(show('猫 and 犬'), ['猫', 'and', '犬']);
  });

  it('copes with long runs of joiners (a backtracking pattern would hang here)', () => {
    const hostile = 'a' + '.'.repeat(200_000) + ' b' + '-a'.repeat(100_000) + '-';
    const tokens = tokenize(hostile);
    assert.equal(tokens[0]!.text, 'a');
    assert.equal(tokens[1]!.kind, 'compound');
  });
});
