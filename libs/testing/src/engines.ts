/** The storage engines every integration suite runs on. */
export const ENGINES = ['pglite', 'postgres'] as const;
export type TestEngine = (typeof ENGINES)[number];
