/** W6, capstan's side: an `Agent` on the real Anthropic provider, with or without the append-only manager. */
import { Agent, type AgentMessage, AppendOnlyContextManager } from "../../src/index.js";
import { getModel } from "../../src/providers/index.js";
import {
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
} from "./conversation.js";

/** Run the scripted conversation through capstan and measure its request bodies. */
export async function capstanConversation(withManager: boolean): Promise<Conversation> {
	const server = await startConversationServer();
	try {
		const pruning = pruningTransform<AgentMessage>();
		const agent = new Agent({
			model: { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl: server.baseUrl },
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
		if (agent.state.error) throw new Error(`capstan run failed: ${agent.state.error}`);
		checkConversation(server.requests.length, pruning.calls());
		return { shares: prefixShares(server.requests), pruningTurns: pruning.pruningTurns };
	} finally {
		await server.close();
	}
}
