/**
 * A configuration schema: one entry per environment variable, with its type, default and doc.
 * `loadConfig` compiles it once into a frozen, typed object; nothing else reads process.env.
 */
export interface FieldSpec<T> {
  readonly env: string;
  readonly doc: string;
  /** Parses the raw string; throws an Error whose message says what is expected. */
  readonly parse: (raw: string) => T;
  /** Used when the variable is unset or empty; absent means the variable is required. */
  readonly default?: T;
  /** Shown in docs instead of the default (for generated secrets and paths). */
  readonly defaultDoc?: string;
  /** Never print the value (keys, passwords). */
  readonly secret?: boolean;
}

export type Schema = Readonly<Record<string, FieldSpec<unknown>>>;

export type ConfigOf<S extends Schema> = {
  readonly [K in keyof S]: S[K] extends FieldSpec<infer T> ? T : never;
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`invalid configuration: ${variable}: ${problem}`);
  }
}

function field<T>(parse: (raw: string) => T) {
  return (env: string, doc: string, opts: { default?: T; defaultDoc?: string; secret?: boolean } = {}) =>
    ({ env, doc, parse, ...opts }) as FieldSpec<T>;
}

export const str = field((raw) => raw);

export const optionalStr = (
  env: string,
  doc: string,
  opts: { secret?: boolean } = {},
): FieldSpec<string | undefined> => ({
  env,
  doc,
  parse: (raw) => raw,
  default: undefined,
  ...opts,
});

export const int = (env: string, doc: string, opts: { default?: number; min?: number; max?: number } = {}) =>
  field((raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`expected an integer, got ${JSON.stringify(raw)}`);
    const n = Number(raw);
    if (opts.min !== undefined && n < opts.min) throw new Error(`must be >= ${opts.min}`);
    if (opts.max !== undefined && n > opts.max) throw new Error(`must be <= ${opts.max}`);
    return n;
  })(env, doc, opts.default === undefined ? {} : { default: opts.default });

/** An integer that may stay unset (undefined): the code then decides, e.g. from stored state. */
export const optionalInt = (
  env: string,
  doc: string,
  opts: { min?: number; max?: number } = {},
): FieldSpec<number | undefined> => ({
  ...int(env, doc, opts),
  default: undefined,
});

export const num = (env: string, doc: string, opts: { default?: number; min?: number; max?: number } = {}) =>
  field((raw) => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
      throw new Error(`expected a number, got ${JSON.stringify(raw)}`);
    if (opts.min !== undefined && n < opts.min) throw new Error(`must be >= ${opts.min}`);
    if (opts.max !== undefined && n > opts.max) throw new Error(`must be <= ${opts.max}`);
    return n;
  })(env, doc, opts.default === undefined ? {} : { default: opts.default });

export const bool = (env: string, doc: string, opts: { default?: boolean } = {}) =>
  field((raw) => {
    const v = raw.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(v)) return true;
    if (['0', 'false', 'no', 'off'].includes(v)) return false;
    throw new Error(`expected true or false, got ${JSON.stringify(raw)}`);
  })(env, doc, opts);

export const oneOf = <const T extends string>(
  env: string,
  doc: string,
  values: readonly T[],
  opts: { default?: T } = {},
) =>
  field((raw): T => {
    const v = raw.trim() as T;
    if (!values.includes(v))
      throw new Error(`expected one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
    return v;
  })(env, `${doc} (${values.join(' | ')})`, opts);

/** Compiles a schema against an environment into a frozen typed object; the first error names its variable. */
export function loadConfig<S extends Schema>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(schema)) {
    const raw = env[spec.env];
    if (raw === undefined || raw === '') {
      if (!('default' in spec)) throw new ConfigError(spec.env, 'is required');
      out[key] = spec.default;
      continue;
    }
    try {
      out[key] = spec.parse(raw);
    } catch (err) {
      throw new ConfigError(spec.env, err instanceof Error ? err.message : String(err));
    }
  }
  return Object.freeze(out) as ConfigOf<S>;
}

/** Markdown table of a schema, for docs/configuration.md. */
export function describeSchema(schema: Schema): string {
  const rows = Object.values(schema).map((s) => {
    const def =
      s.defaultDoc ??
      ('default' in s ? (s.default === undefined ? '(unset)' : JSON.stringify(s.default)) : '(required)');
    return `| \`${s.env}\` | ${def.replace(/\|/g, '\\|')} | ${s.doc.replace(/\|/g, '\\|')} |`;
  });
  return ['| variable | default | meaning |', '|---|---|---|', ...rows].join('\n');
}
