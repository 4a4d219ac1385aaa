/** W6, pi's side: a pi-agent-core `Agent` on pi-ai's Anthropic provider (its default stream function). */
import { Agent, type AgentMessage, type AgentTool } from "@mariozechner/pi-agent-core";
import { getModel, Type } from "@mariozechner/pi-ai";
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

const parameters = Type.Object({ item: Type.Integer() });
const lookup: AgentTool<typeof parameters> = {
	name: TOOL_NAME,
	label: TOOL_NAME,
	description: TOOL_DESCRIPTION,
	parameters,
	execute: async (_id, args) => ({ content: [{ type: "text", text: lookupResult(args.item) }], details: {} }),
};

/** Run the scripted conversation through pi-agent-core and measure its request bodies. */
export async function piConversation(): Promise<Conversation> {
	const server = await startConversationServer();
	try {
		const pruning = pruningTransform<AgentMessage>();
		const agent = new Agent({
			initialState: {
				systemPrompt: SYSTEM_PROMPT,
				model: { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl: server.baseUrl },
				thinkingLevel: "off",
				tools: [lookup],
			},
			getApiKey: () => "bench-key",
			transformContext: async (messages) => pruning.transform(messages),
		});
		await agent.prompt(PROMPT);
		if (agent.state.errorMessage) throw new Error(`pi-agent-core run failed: ${agent.state.errorMessage}`);
		checkConversation(server.requests.length, pruning.calls());
		return { shares: prefixShares(server.requests), pruningTurns: pruning.pruningTurns };
	} finally {
		await server.close();
	}
}
