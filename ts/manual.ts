/**
 * zom without automatic loading: call `await init(source)` before anything else (the API
 * throws ZomError("InvalidArgument") until then).
 * @module
 */
export { init, isInitialized } from "./load.js";
export type { InitSource } from "./load.js";
export * from "./public.js";
