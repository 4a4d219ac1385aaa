import { describe, expect, it } from "vitest";
import { type AgentMessage, agentLoop, defaultConvertToLlm, type Model } from "../../src/index.js";
import { buildAnthropicRequest } from "../../src/providers/anthropic/request.js";
import { buildGeminiRequest } from "../../src/providers/google/request.js";
import { getModel } from "../../src/providers/models.js";
import { buildOpenAICompletionsRequest } from "../../src/providers/openai-completions/request.js";
import { buildResponsesRequest } from "../../src/providers/openai-responses/request.js";
import { scriptedModel } from "../../src/testing/index.js";
import { echoTool, user } from "../support/run.js";
import { assertPaired, collect } from "../support/trace.js";

async function transcriptFor(model: Model): Promise<AgentMessage[]> {
	const scripted = scriptedModel(
		[
			{
				content: [
					{ type: "thinking", thinking: "I should echo.", signature: "sig-opaque==" },
					{ type: "text", text: "Echoing." },
					{ type: "toolCall", name: "echo", arguments: { text: "a" }, id: "toolu_01A" },
					{ type: "toolCall", name: "echo", arguments: { text: "b" }, id: "toolu_01B" },
				],
			},
			{ content: [{ type: "text", text: "Both done." }] },
		],
		{ model: { id: model.id, api: model.api, provider: model.provider }, now: () => 1 },
	);
	const stream = agentLoop(
		[user("echo twice")],
		{ messages: [], tools: [echoTool()] },
		{
			model: scripted.model,
			streamFn: scripted.stream,
			now: () => 1,
		},
	);
	return (await collect(stream)).result;
}

const builders: [string, Model, (model: Model, messages: AgentMessage[]) => unknown][] = [
	[
		"anthropic",
		getModel("anthropic", "claude-sonnet-4-5"),
		(m, ms) => buildAnthropicRequest(m, { messages: defaultConvertToLlm(ms) }),
	],
	[
		"openai-completions",
		getModel("openai", "gpt-4.1"),
		(m, ms) =>
			buildOpenAICompletionsRequest(
				{ ...m, api: "openai-completions" },
				{ messages: defaultConvertToLlm(ms) },
			),
	],
	[
		"openai-responses",
		getModel("openai", "gpt-5"),
		(m, ms) =>
			buildResponsesRequest({ ...m, api: "openai-responses" }, { messages: defaultConvertToLlm(ms) }),
	],
	[
		"google",
		getModel("google", "gemini-2.5-flash"),
		(m, ms) => buildGeminiRequest(m, { messages: defaultConvertToLlm(ms) }),
	],
];

describe("replayable transcripts", () => {
	it.each(builders)(
		"SPEC M6, I5: a %s transcript saved as JSON and loaded back builds the same request bytes",
		async (_name, model, build) => {
			const transcript = await transcriptFor(model);
			const reloaded = JSON.parse(JSON.stringify(transcript)) as AgentMessage[];
			expect(reloaded).toEqual(transcript);
			assertPaired(reloaded);
			expect(JSON.stringify(build(model, reloaded))).toBe(JSON.stringify(build(model, transcript)));
		},
	);

	it("SPEC I5: the Anthropic request replays the thinking signature and the tool ids byte for byte", async () => {
		const model = getModel("anthropic", "claude-sonnet-4-5");
		const reloaded = JSON.parse(JSON.stringify(await transcriptFor(model))) as AgentMessage[];
		const body = JSON.stringify(buildAnthropicRequest(model, { messages: defaultConvertToLlm(reloaded) }));
		expect(body).toContain('"signature":"sig-opaque=="');
		expect(body).toContain('"id":"toolu_01A"');
		expect(body).toContain('"tool_use_id":"toolu_01B"');
	});

	it.each(builders)(
		"SPEC M2: tool result details are for the host and never reach the %s request",
		async (_name, model, build) => {
			const scripted = scriptedModel(
				[
					{ content: [{ type: "toolCall", name: "probe", arguments: {}, id: "toolu_01P" }] },
					{ content: [{ type: "text", text: "ok" }] },
				],
				{ model: { id: model.id, api: model.api, provider: model.provider }, now: () => 1 },
			);
			const probe = {
				name: "probe",
				description: "returns host-only details",
				parameters: { type: "object", properties: {} },
				execute: async () => ({
					content: [{ type: "text" as const, text: "visible" }],
					details: { secret: "HOST-ONLY-DETAIL" },
				}),
			};
			const stream = agentLoop(
				[user("go")],
				{ messages: [], tools: [probe] },
				{ model: scripted.model, streamFn: scripted.stream, now: () => 1 },
			);
			const transcript = (await collect(stream)).result;
			expect(JSON.stringify(transcript)).toContain("HOST-ONLY-DETAIL");
			const body = JSON.stringify(build(model, transcript));
			expect(body).toContain("visible");
			expect(body).not.toContain("HOST-ONLY-DETAIL");
		},
	);
});
