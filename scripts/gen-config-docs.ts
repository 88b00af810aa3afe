/** Prints docs/configuration.md from the settings schema (make docs; CI checks it is current). */
import { describeSchema, engramSchema } from '@engram/config';

process.stdout.write(`# Configuration

Every setting is an environment variable, validated once at startup; an invalid value stops the process
with a message naming the variable. Generated from libs/config/src/settings.ts by \`make docs\`.

${describeSchema(engramSchema)}
`);
