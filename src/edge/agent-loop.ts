/**
 * The package edge of the loop: `agentLoop` and `agentLoopContinue` as exported from `capstan`, which fill in
 * what a config leaves out — the stream function and the reply guard — before handing it to the loop. The
 * loop itself imports no provider; the defaults are chosen here and loaded lazily (see `registryStream`,
 * `providerReplyGuard`).
 */
import type { AgentMessage } from "../core/messages.js";
import {
	type AgentEventStream,
	type ContinueOptions,
	continueAgentLoop,
	type LoopConfig,
	startAgentLoop,
} from "../loop/agent-loop.js";
import type { AgentLoopConfig } from "../protocol/config.js";
import type { AgentContext } from "../protocol/events.js";
import { providerReplyGuard, registryStream } from "./defaults.js";

/**
 * Start a run with new prompt messages (rule L1). Returns the event stream synchronously; all work is
 * asynchronous. Iterate the stream (one consumer) for the events; `result()` resolves to every message the run
 * added, in context order. Failures are data (rule L12): the stream never throws and `result()` never rejects
 * once the run has started; `agent_end.outcome` says how it ended. `prompts` are taken as given (the `Agent`
 * refuses blank ones, rule Q7).
 *
 * `context.messages` is never mutated; `context.systemPrompt` and `context.tools` are read again before every
 * model call, so the caller may change them mid-run. `signal` aborts the run (rule A1). Without
 * `config.streamFn`, model calls go through the provider registry (`capstan/providers`), loaded on the first
 * call.
 *
 * Throws at once when the context's last assistant message has tool calls without results (rule T17: calls
 * awaiting approval, or a batch cut off by a crash): resume them with `agentLoopContinue`. Throws a
 * `TypeError` for a setup no call could run with: a tool whose parameters' root is plainly not an object
 * (`type: "string"`, a `type` list without `"object"`; a call's arguments are always one, rule T1), a tool
 * name providers reject or one given twice (the error names the tool), a `config.deadline` that is not a
 * number (rule A7), a `config.streamOptions.thinkingLevel` that is not a level (rule X5).
 *
 * Rule ids are those of `docs/behaviour.md`, shipped in the package.
 */
export function agentLoop(
	prompts: AgentMessage[],
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
): AgentEventStream {
	return startAgentLoop(prompts, context, withDefaults(config), signal);
}

/**
 * Continue from the existing context without a new prompt (rule L6); the stream, `signal` and failures are as
 * in `agentLoop`. Throws synchronously for an empty context, for one whose last message is an assistant
 * message with no unpaired tool calls, for unanswered tool calls followed by a user message (rule T17), and for
 * a tool whose parameters are not an object schema (as `agentLoop`);
 * when the last assistant message has tool calls without results, that batch runs first, then the loop goes on.
 *
 * That assistant message belongs to the caller's context, which the loop never mutates: if `beforeToolCall`
 * revises arguments in the resumed batch (rule T4), the revised reply arrives as that turn's
 * `turn_end.message` and the caller replaces its copy (the `Agent` does this for you). The stream function
 * defaults as in `agentLoop`.
 *
 * A run that ended `awaiting_approval` (rule T15) resumes here: pass the saved transcript as the context and
 * `{ approvals: { [toolCallId]: { approved: true } | { approved: false, reason } } }` (rule T16). An id that
 * is not an unanswered call, or a malformed decision, throws at once; undecided calls ask again.
 */
export function agentLoopContinue(
	context: AgentContext,
	config: AgentLoopConfig,
	signal?: AbortSignal,
	options?: ContinueOptions,
): AgentEventStream {
	return continueAgentLoop(context, withDefaults(config), signal, options);
}

function withDefaults(config: AgentLoopConfig): LoopConfig {
	if (config.streamFn && config.replyGuard) return config as LoopConfig;
	return {
		...config,
		streamFn: config.streamFn ?? registryStream,
		replyGuard: config.replyGuard ?? providerReplyGuard,
	};
}
