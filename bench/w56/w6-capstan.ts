/**
 * W6, capstan's side: an `Agent` on the real Anthropic or Chat Completions provider, with or without the
 * append-only manager.
 */
import { Agent, type AgentMessage, AppendOnlyContextManager, type Model } from "../../src/index.js";
import { getModel } from "../../src/providers/index.js";
import {
	CHAT_MODEL,
	type Conversation,
	checkConversation,
	lookupResult,
	PROMPT,
	prefixShares,
	pruningTransform,
	SYSTEM_PROMPT,
	startConversationServer,
	TOOL_DESCRIPTION,
	TOOL_NAME,
	type Wire,
} from "./conversation.js";

/** The model on `wire`, pointed at the loopback server (`baseUrl` without `/v1`). */
export function modelOn(wire: Wire, baseUrl: string): Model {
	if (wire === "anthropic-messages") return { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl };
	return {
		id: CHAT_MODEL,
		api: "openai-completions",
		provider: "openai",
		baseUrl: `${baseUrl}/v1`,
		reasoning: false,
		input: ["text"],
		contextWindow: 128_000,
		maxTokens: 16_384,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	};
}

/** Run the scripted conversation through capstan on `wire` and measure its request bodies. */
export async function capstanConversation(
	withManager: boolean,
	wire: Wire = "anthropic-messages",
): Promise<Conversation> {
	const server = await startConversationServer(wire);
	try {
		const pruning = pruningTransform<AgentMessage>();
		const agent = new Agent({
			model: modelOn(wire, server.baseUrl),
			systemPrompt: SYSTEM_PROMPT,
			tools: [
				{
					name: TOOL_NAME,
					description: TOOL_DESCRIPTION,
					parameters: { type: "object", properties: { item: { type: "integer" } }, required: ["item"] },
					execute: async (_id, args: { item: number }) => ({
						content: [{ type: "text", text: lookupResult(args.item) }],
					}),
				},
			],
			getApiKey: () => "bench-key",
			transformContext: pruning.transform,
			...(withManager ? { contextManager: new AppendOnlyContextManager() } : {}),
		});
		await agent.prompt(PROMPT);
		if (agent.state.error) throw new Error(`capstan run failed on ${wire}: ${agent.state.error}`);
		checkConversation(server.requests, pruning.calls(), wire);
		return { wire, shares: prefixShares(server.requests), pruningTurns: pruning.pruningTurns };
	} finally {
		await server.close();
	}
}
