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
export async function buildProviderCall(
	state: RunState,
	pending: readonly AgentMessage[],
	toolChoice: ToolChoice | undefined,
): Promise<ProviderCall> {
	const { config } = state;
	let messages: Message[];
	if (config.transformContext || config.convertToLlm) {
		let agentMessages: AgentMessage[] = pending.length
			? [...state.messages, ...pending]
			: state.messages.slice();
		if (config.transformContext)
			agentMessages = await untilAborted(state, config.transformContext(agentMessages, state.signal));
		messages = config.convertToLlm
			? await untilAborted(state, config.convertToLlm(agentMessages))
			: defaultConvertToLlm(agentMessages);
	} else {
		messages = state.wireLog.sync(state.messages, pending);
	}
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

	const options: StreamOptions = { ...config.streamOptions, signal: state.signal };
	const apiKey = await untilAborted(state, config.getApiKey?.(config.model.provider));
	if (apiKey !== undefined) options.apiKey = apiKey;
	const thinkingLevel = config.getThinkingLevel?.();
	if (thinkingLevel !== undefined) options.thinkingLevel = thinkingLevel;
	if (toolChoice !== undefined) options.toolChoice = toolChoice;
	if (cacheHints) options.cacheHints = cacheHints;
	return { context, options };
}
