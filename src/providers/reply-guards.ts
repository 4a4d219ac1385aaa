import type { ReplyGuardResolver } from "../protocol/reply-guard.js";
import { harmonyLeakGuard } from "./openai-completions/harmony-guard.js";

/**
 * The reply guards built-in providers' models ask for through their compat flags (today: the Harmony leak
 * guard, rule X4). The package edge loads this module lazily, only for models that carry compat flags.
 */
export const defaultReplyGuard: ReplyGuardResolver = harmonyLeakGuard();
