/**
 * The OpenAI Responses provider end to end over the loopback server: the prompt-bytes property across ten
 * turns (prompt caching) and the request as it goes over the wire.
 */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import type { Context } from "../../../src/core/model.js";
import { fixturesFor, responseBodies } from "../support/fixtures.js";
import { HI } from "../support/transcript.js";
import { collect, responsesModel } from "./helpers.js";
import { closeServerAfterEach, created, serve, sse, usage } from "./synthetic.js";

closeServerAfterEach();

describe("prompt bytes: ten turns keep the input prefix byte for byte (prompt caching)", () => {
	it("each request's input begins with the previous request's input", async () => {
		const fixture = fixturesFor(["openai-responses"]).find((f) =>
			f.file.includes("reasoning-encrypted-content"),
		);
		const bodies = responseBodies(fixture!);
		const turns = 10;
		const s = await serve(
			...Array.from({ length: turns }, (_, i) => ({
				type: "sse" as const,
				body: bodies[i % bodies.length]!,
				split: { seed: i },
			})),
		);
		const model = responsesModel(s.baseUrl, { id: "gpt-5.1-codex-max" });
		const messages: Message[] = [];
		const context: Context = {
			systemPrompt: "Use the calculator.",
			messages,
			tools: [{ name: "calculator", description: "math", parameters: { type: "object" } }],
		};
		for (let turn = 0; turn < turns; turn++) {
			const last = messages.at(-1);
			const calls = last?.role === "assistant" ? last.content.filter((b) => b.type === "toolCall") : [];
			if (calls.length === 0) messages.push({ role: "user", content: `question ${turn}`, timestamp: turn });
			for (const call of calls)
				if (call.type === "toolCall")
					messages.push({
						role: "toolResult",
						toolCallId: call.id,
						toolName: call.name,
						content: [{ type: "text", text: `${turn}` }],
						isError: false,
						timestamp: turn,
					});
			const { message } = await collect(model, context, { thinkingLevel: "high", sessionId: "conv-1" });
			expect(message.stopReason === "stop" || message.stopReason === "toolUse").toBe(true);
			messages.push(message);
		}
		const inputs = s.requests.map((request) => {
			const at = request.body.indexOf('"input":[');
			expect(at).toBeGreaterThan(0);
			// `input` is the last key: the body ends with the input array and the closing brace.
			expect(request.body.endsWith("]}")).toBe(true);
			return request.body.slice(at, -2);
		});
		expect(inputs).toHaveLength(turns);
		for (let i = 1; i < inputs.length; i++) {
			expect(inputs[i]!.startsWith(inputs[i - 1]!)).toBe(true);
			expect(inputs[i]!.length).toBeGreaterThan(inputs[i - 1]!.length);
			// Everything before `input` is identical too.
			expect(s.requests[i]!.body.slice(0, 200)).toBe(s.requests[0]!.body.slice(0, 200));
		}
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
