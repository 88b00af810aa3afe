import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { REPO_ROOT } from '@engram/testing';

/** The Compose Specification's JSON schema, as shipped by the dclint package (a dev dependency). */
const SCHEMA = join(REPO_ROOT, 'node_modules/dclint/schemas/compose.schema.json');
const ENGRAM_PROCESSES = [
  'memory-store',
  'ingest-security',
  'retrieval-ranking',
  'ace-feedback',
  'security-admin',
  'gateway',
];

interface ComposeService {
  profiles?: string[];
  command?: string[];
  image?: string;
  environment?: Record<string, string>;
  env_file?: unknown;
  configs?: unknown;
  volumes?: string[];
}
interface ComposeFile {
  services: Record<string, ComposeService>;
}

function loadCompose(text: string): ComposeFile {
  return parse(text, { merge: true }) as ComposeFile;
}

function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  // The file names draft-07 by an https URL Ajv does not know; its keywords are draft-07's, Ajv's default.
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(SCHEMA, 'utf8')) as Record<string, unknown>;
  return ajv.compile(schema);
}

describe('deploy/compose.yaml', () => {
  const text = readFileSync(join(REPO_ROOT, 'deploy/compose.yaml'), 'utf8');
  const compose = loadCompose(text);
  const services = compose.services;

  it('is valid under the Compose Specification JSON schema', () => {
    const validate = validator();
    const ok = validate(compose);
    assert.ok(ok, JSON.stringify(validate.errors, null, 2));
  });

  it('the schema check rejects what Compose rejects (an unknown key, a wrong type)', () => {
    const validate = validator();
    assert.equal(
      validate(loadCompose(text.replace('restart: unless-stopped', 'restartt: unless-stopped'))),
      false,
    );
    assert.equal(validate({ services: { x: { image: 'a', ports: 'not-a-list' } } }), false);
  });

  it('the embedded profile is one container with its data directory on a volume', () => {
    const embedded = Object.entries(services).filter(([, s]) => s.profiles?.includes('embedded'));
    assert.deepEqual(
      embedded.map(([n]) => n),
      ['engram'],
    );
    const [, engram] = embedded[0]!;
    assert.deepEqual(engram.command, ['embedded']);
    assert.equal(engram.environment?.ENGRAM_DATA_DIR, '/data');
    assert.ok(engram.volumes?.includes('engram-data:/data'));
  });

  it('the distributed profile runs PostgreSQL, NATS, Redis and the six Engram processes from one image', () => {
    const distributed = Object.entries(services)
      .filter(([, s]) => s.profiles?.includes('distributed'))
      .map(([n]) => n);
    assert.deepEqual(distributed.sort(), ['nats', 'postgres', 'redis', ...ENGRAM_PROCESSES].sort());
    const images = new Set(ENGRAM_PROCESSES.map((n) => services[n]!.image));
    assert.equal(images.size, 1, 'one image for every process');
    for (const name of ENGRAM_PROCESSES) {
      const s = services[name]!;
      assert.deepEqual(s.command, [name], `${name} is picked by the image's first argument`);
      assert.equal(s.env_file, undefined, `${name} is configured by its environment only`);
      assert.equal(s.configs, undefined, `${name} is configured by its environment only`);
      for (const v of [
        'DATABASE_URL',
        'NATS_URL',
        'REDIS_URL',
        'SERVICE_INTEGRITY_KEY',
        'MEMORY_STORE_ADDR',
      ]) {
        assert.ok(s.environment?.[v], `${name} sets ${v}`);
      }
    }
    assert.match(services.nats!.command!.join(' '), /--jetstream/);
    assert.match(services.postgres!.image!, /pgvector/);
  });

  it('every command it runs is one the image entry point knows', () => {
    const entrypoint = readFileSync(join(REPO_ROOT, 'deploy/image/entrypoint'), 'utf8');
    for (const s of Object.values(services)) {
      if (!s.image?.startsWith('${ENGRAM_IMAGE')) continue;
      const what = s.command![0]!;
      assert.ok(
        what === 'embedded' || entrypoint.includes(`| ${what}`) || entrypoint.includes(`${what} |`),
        what,
      );
    }
  });
});
