import type { Platform } from '@engram/platform';
import type { KeyService } from './domain/keys.ts';

/**
 * First start: project "default" always exists. In embedded mode with no SERVICE_API_KEY and no key
 * at all, a system key (the instance administrator) is generated and printed once.
 */
export async function bootstrapKeys(platform: Platform, keys: KeyService): Promise<string | undefined> {
  const generated = await keys.bootstrapFirstKey();
  if (generated === undefined || platform.config.serviceApiKey !== undefined || !platform.embedded) {
    return undefined;
  }
  return generated;
}
