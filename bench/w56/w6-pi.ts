/**
 * W6, pi's side: a pi-agent-core `Agent` on pi-ai's Anthropic or openai-completions provider (its default
 * stream function).
 */
import { Agent, type AgentMessage, type AgentTool } from "@mariozechner/pi-agent-core";
import { type Api, getModel, type Model, Type } from "@mariozechner/pi-ai";
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

const parameters = Type.Object({ item: Type.Integer() });
const lookup: AgentTool<typeof parameters> = {
	name: TOOL_NAME,
	label: TOOL_NAME,
	description: TOOL_DESCRIPTION,
	parameters,
	execute: async (_id, args) => ({ content: [{ type: "text", text: lookupResult(args.item) }], details: {} }),
};

/** The model on `wire`, pointed at the loopback server (the same model id capstan sends). */
function modelOn(wire: Wire, baseUrl: string): Model<Api> {
	if (wire === "anthropic-messages") return { ...getModel("anthropic", "claude-sonnet-4-5"), baseUrl };
	const chat: Model<"openai-completions"> = {
		id: CHAT_MODEL,
		name: CHAT_MODEL,
		api: "openai-completions",
		provider: "openai",
		baseUrl: `${baseUrl}/v1`,
		reasoning: false,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: 128_000,
		maxTokens: 16_384,
	};
	return chat;
}

/** Run the scripted conversation through pi-agent-core on `wire` and measure its request bodies. */
export async function piConversation(wire: Wire = "anthropic-messages"): Promise<Conversation> {
	const server = await startConversationServer(wire);
	try {
		const pruning = pruningTransform<AgentMessage>();
		const agent = new Agent({
			initialState: {
				systemPrompt: SYSTEM_PROMPT,
				model: modelOn(wire, server.baseUrl),
				thinkingLevel: "off",
				tools: [lookup],
			},
			getApiKey: () => "bench-key",
			transformContext: async (messages) => pruning.transform(messages),
		});
		await agent.prompt(PROMPT);
		if (agent.state.errorMessage)
			throw new Error(`pi-agent-core run failed on ${wire}: ${agent.state.errorMessage}`);
		checkConversation(server.requests, pruning.calls(), wire);
		return { wire, shares: prefixShares(server.requests), pruningTurns: pruning.pruningTurns };
	} finally {
		await server.close();
	}
}
