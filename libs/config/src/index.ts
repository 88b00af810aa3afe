export {
  bool,
  ConfigError,
  describeSchema,
  int,
  loadConfig,
  num,
  oneOf,
  optionalInt,
  optionalStr,
  str,
} from './schema.ts';
export type { ConfigOf, FieldSpec, Schema } from './schema.ts';
export { engramSchema, loadEngramConfig } from './settings.ts';
export type { EngramConfig } from './settings.ts';
