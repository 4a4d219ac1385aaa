/** Entry for `capstan/providers`: see `src/providers/index.ts`. */
export * from "./providers/index.js";
