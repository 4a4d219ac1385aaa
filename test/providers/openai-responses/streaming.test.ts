/**
 * The OpenAI Responses provider end to end over the loopback server: the prompt-bytes property across ten
 * turns (prompt caching) and the request as it goes over the wire.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context } from "../../../src/core/model.js";
import { fixtureMatching, responseBodies } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { appendNextTurn, expectGrowingPrefixes, serveTurns, trailingArray } from "../support/prompt-bytes.js";
import { HI } from "../support/transcript.js";
import { collect, responsesModel } from "./helpers.js";
import { created, sse, usage } from "./synthetic.js";

closeServersAfterEach();

describe("prompt bytes: ten turns keep the input prefix byte for byte (prompt caching)", () => {
	it("each request's input begins with the previous request's input", async () => {
		const bodies = responseBodies(fixtureMatching(["openai-responses"], "reasoning-encrypted-content"));
		const turns = 10;
		const s = await serveTurns(bodies, turns);
		const model = responsesModel(s.baseUrl, { id: "gpt-5.1-codex-max" });
		const messages: Message[] = [];
		const context: Context = {
			systemPrompt: "Use the calculator.",
			messages,
			tools: [{ name: "calculator", description: "math", parameters: { type: "object" } }],
		};
		for (let turn = 0; turn < turns; turn++) {
			appendNextTurn(messages, turn);
			const { message } = await collect(model, context, { thinkingLevel: "high", sessionId: "conv-1" });
			expect(message.stopReason === "stop" || message.stopReason === "toolUse").toBe(true);
			messages.push(message);
		}
		// `input` is the last key: the body ends with the input array and the closing brace.
		const inputs = s.requests.map((request) => trailingArray(request.body, "input"));
		expect(inputs).toHaveLength(turns);
		expectGrowingPrefixes(inputs);
		// Everything before `input` is identical too.
		for (let i = 1; i < inputs.length; i++)
			expect(s.requests[i]!.body.slice(0, 200)).toBe(s.requests[0]!.body.slice(0, 200));
		// The replayed reasoning item carries its encrypted content unchanged.
		expect(s.requests[1]!.body).toContain('"encrypted_content":"gAAAAABpPDIV');
	});
});

describe("request over the wire", () => {
	it("POSTs to {baseUrl}/responses with a bearer key and the exact body", async () => {
		const s = await serve({
			type: "sse",
			body: sse(created, {
				type: "response.completed",
				response: { id: "resp_syn", status: "completed", output: [], usage },
			}),
		});
		await collect(responsesModel(`${s.baseUrl}/v1/`), HI, { apiKey: "sk-test" });
		expect(s.requests[0]?.method).toBe("POST");
		expect(s.requests[0]?.path).toBe("/v1/responses");
		expect(s.requests[0]?.headers.authorization).toBe("Bearer sk-test");
		expect(JSON.parse(s.requests[0]!.body).store).toBe(false);
	});
});
