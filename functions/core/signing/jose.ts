/**
 * jose, loaded on a container's first token, file or new key, never by a cold start, and imported
 * once: every `import()` asks the module loader to resolve the name again, which under a loader
 * with hooks (tsx, as `npm start` and the bench run the code) is a round trip to the loader's
 * thread, several milliseconds of a request on a busy machine (docs/performance.md).
 */
let loaded: Promise<typeof import('jose')> | undefined;

export const loadJose = (): Promise<typeof import('jose')> => (loaded ??= import('jose'));
