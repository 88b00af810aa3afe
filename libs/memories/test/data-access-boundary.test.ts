import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * @engram/memories is the one place outside memory-store that reads memories, votes or provenance:
 * eslint.config.js forbids those tables in services' sources. This checks that the rule is in force
 * where it must be (every service but memory-store) and that it catches a stray statement of each
 * form. That no service source holds one today is `make lint`'s check (the same rule over every file).
 */

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RULE = 'no-restricted-syntax';

type RuleEntry = Linter.RuleEntry | undefined;

async function ruleFor(file: string): Promise<RuleEntry> {
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile(join(ROOT, file))) as
    { rules?: Record<string, RuleEntry> } | undefined;
  return config?.rules?.[RULE];
}

const guards = (entry: RuleEntry) => JSON.stringify(entry ?? null).includes('@engram/memories');

/**
 * The rule as a service file gets it, run on `code` without type information (only syntax matters):
 * the rule's messages; a file that does not parse fails the test rather than passing unchecked.
 */
let serviceRule: Promise<RuleEntry> | undefined;
async function lint(code: string, filename = 'stray.ts'): Promise<string[]> {
  const entry = await (serviceRule ??= ruleFor(
    'services/retrieval-ranking/src/storage/search-repository.ts',
  ));
  const messages = new Linter({ configType: 'flat' }).verify(
    code,
    [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { [RULE]: entry! } }],
    { filename },
  );
  const fatal = messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${filename} was not checked`);
  return messages.filter((m) => m.message.includes('@engram/memories')).map((m) => `${filename}:${m.line}`);
}

function serviceSources(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) out.push(relative(ROOT, path));
    }
  };
  for (const service of readdirSync(join(ROOT, 'services'))) {
    if (service === 'memory-store') continue;
    try {
      walk(join(ROOT, 'services', service, 'src'));
    } catch {
      // A service folder without src/.
    }
  }
  return out;
}

describe('data-access boundary (eslint.config.js)', function () {
  this.timeout(60_000);

  it('applies to every service but memory-store, and not to the library', async () => {
    // One file of every service's src/ (a service added later is covered too), and the storage files
    // most tempted to write SQL of their own.
    const perService = new Map(serviceSources().map((f) => [f.split('/')[1], f] as const));
    assert.ok(perService.size >= 7, `only ${perService.size} services found`);
    for (const file of [
      ...perService.values(),
      'services/retrieval-ranking/src/storage/search-repository.ts',
      'services/ace-feedback/src/storage/memory-lookup.ts',
      'services/security-admin/src/storage/security-read-repository.ts',
    ])
      assert.ok(guards(await ruleFor(file)), `${file} is not guarded`);
    for (const file of [
      'services/memory-store/src/storage/memory-repository.ts',
      'libs/memories/src/lookup.ts',
    ])
      assert.ok(!guards(await ruleFor(file)), `${file} should be free to name memories`);
  });

  it('catches a stray statement on memories, votes or provenance, in each form', async () => {
    const strays = [
      `knex('memories').where('id', id);`,
      `db.read('memories as m').select('m.id');`,
      `trx('memory_votes').insert(row);`,
      `db.read('memory_provenance').max('depth');`,
      `q.join('memories', 'memories.id', 'a.memory_id');`,
      `knex.raw('select id from memories where project_id = ?', [p]);`,
      'knex.raw(`update memories set embedding = null`);',
      'knex.raw(`select 1 from memory_votes v where v.memory_id = ${x}`);',
      `knex.schema.hasTable('memories');`,
      `qb.whereIn('memories.id', ids);`,
    ];
    for (const code of strays) assert.equal((await lint(code)).length > 0, true, `not caught: ${code}`);
  });

  it('lets names that are not SQL through', async () => {
    assert.deepEqual(await lint(`runGroup('memories', USAGE, VERBS, args);`), []);
    assert.deepEqual(await lint(`const route = '/memories/add'; const name = { name: 'memories' };`), []);
  });
});
