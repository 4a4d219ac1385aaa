/** Entry for `capstan/openai`: the OpenAI Chat Completions and Responses providers and OpenAI-compatible servers. */

/** The Harmony leak guard (rule X4), a reply guard for models flagged `compat.harmonyLeakGuard`. */
export {
	type HarmonyLeakAction,
	type HarmonyLeakGuardOptions,
	type HarmonyLeakLocation,
	type HarmonyLeakReport,
	harmonyLeakGuard,
	MAX_HARMONY_RETRIES,
} from "./providers/openai-completions/harmony-guard.js";
export * from "./providers/openai-completions/index.js";
export * from "./providers/openai-responses/index.js";
