import { defaultConvertToLlm } from "../context/convert.js";
import type { AgentMessage, Message } from "../core/messages.js";
import type { Context, StreamOptions, ToolChoice } from "../core/model.js";
import { toToolSpecs } from "../tools/specs.js";
import type { RunState } from "./run-state.js";
import { untilAborted } from "./signals.js";

/** The provider-bound request of one model call. */
export interface ProviderCall {
	context: Context;
	options: StreamOptions;
}

/**
 * Rule C1, per model call and in this order: `transformContext` (agent level; output not written back) →
 * `convertToLlm` (the only AgentMessage → Message conversion) → provider normalization (C4) → tool
 * normalization (C5) → optional append-only build (X2). `pending` are the messages about to be injected
 * this turn.
 */
export function buildProviderCall(
	state: RunState,
	pending: readonly AgentMessage[],
	toolChoice: ToolChoice | undefined,
): ProviderCall | Promise<ProviderCall> {
	const { config } = state;
	// Without host hooks the call is built synchronously: a turn that needs no host code costs no tick.
	if (config.transformContext || config.convertToLlm)
		return convertedMessages(state, pending).then((messages) => withOptions(state, messages, toolChoice));
	const wire = state.wireLog.sync(state.messages, pending);
	// The log is the run's own cache, kept across calls: a normalizer gets a copy it may change in place, as it
	// does when the hooks above hand it a fresh array (rule C4 applies to this call only).
	return withOptions(state, config.normalizeMessages ? wire.slice() : wire, toolChoice);
}

async function convertedMessages(state: RunState, pending: readonly AgentMessage[]): Promise<Message[]> {
	const { config } = state;
	let agentMessages: AgentMessage[] = pending.length
		? [...state.messages, ...pending]
		: state.messages.slice();
	if (config.transformContext)
		agentMessages = await untilAborted(state, config.transformContext(agentMessages, state.signal));
	return config.convertToLlm
		? await untilAborted(state, config.convertToLlm(agentMessages))
		: defaultConvertToLlm(agentMessages);
}

function withOptions(
	state: RunState,
	converted: Message[],
	toolChoice: ToolChoice | undefined,
): ProviderCall | Promise<ProviderCall> {
	const { config } = state;
	let messages = converted;
	if (config.normalizeMessages) messages = config.normalizeMessages(messages, config.model);

	let context: Context = { messages };
	if (state.context.systemPrompt !== undefined) context.systemPrompt = state.context.systemPrompt;
	const tools = state.context.tools;
	if (tools && tools.length > 0)
		context.tools = toToolSpecs(tools, { intentTracing: config.intentTracing === true });
	let cacheHints: StreamOptions["cacheHints"];
	if (config.contextManager) {
		const { context: built, stablePrefixChanged, unchangedMessages } = config.contextManager.build(context);
		context = built;
		cacheHints = { stablePrefixChanged, unchangedMessages };
	}

	// No spread of absent stream options, no closure for the common synchronous key: once per model call.
	const options: StreamOptions = config.streamOptions
		? { ...config.streamOptions, signal: state.signal }
		: { signal: state.signal };
	const apiKey = config.getApiKey?.(config.model.provider);
	if (typeof (apiKey as { then?: unknown } | null | undefined)?.then !== "function")
		return finishCall(state, { context, options }, toolChoice, cacheHints, apiKey as string | undefined);
	return Promise.resolve(untilAborted(state, apiKey as Promise<string | undefined>)).then((key) =>
		finishCall(state, { context, options }, toolChoice, cacheHints, key),
	);
}

/**
 * Rule C2: whether the provider-bound messages leave the model nothing to answer: there are none, or they end
 * with a reply of the transcript — only messages the conversion drops (custom notices) came after it. Such a
 * request asks the model to answer itself: a prefill, which Anthropic rejects with thinking on and other APIs
 * answer with a repeated reply. A paused reply (rule S3) is continued on purpose, and an assistant message a
 * host hook built (a deliberate prefill) is not the transcript's own, so both are still sent.
 */
export function nothingToAnswer(messages: readonly Message[], transcript: readonly AgentMessage[]): boolean {
	const last = messages[messages.length - 1];
	if (last === undefined) return true;
	if (last.role !== "assistant" || last.stopDetails?.type === "pause_turn") return false;
	return transcript.lastIndexOf(last) >= 0;
}

/** The call's last options, read once the API key is known. */
function finishCall(
	state: RunState,
	call: ProviderCall,
	toolChoice: ToolChoice | undefined,
	cacheHints: StreamOptions["cacheHints"],
	apiKey: string | undefined,
): ProviderCall {
	const { options } = call;
	if (apiKey !== undefined) options.apiKey = apiKey;
	const thinkingLevel = state.config.getThinkingLevel?.();
	if (thinkingLevel !== undefined) options.thinkingLevel = thinkingLevel;
	if (toolChoice !== undefined) options.toolChoice = toolChoice;
	if (cacheHints) options.cacheHints = cacheHints;
	return call;
}
