/**
 * SPEC C4: an image of a type the provider cannot take (a BMP an MCP tool returned, say) is sent as a short
 * text saying it was left out, by every request builder; the transcript keeps the image. Sent as is, it failed
 * the request and every later one of the conversation.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import type { Message } from "../../../src/core/messages.js";
import type { Context, Model } from "../../../src/core/model.js";
import { buildAnthropicRequest } from "../../../src/providers/anthropic/index.js";
import { buildGeminiRequest } from "../../../src/providers/google/request.js";
import { buildOpenAICompletionsRequest } from "../../../src/providers/openai-completions/request.js";
import { buildResponsesRequest } from "../../../src/providers/openai-responses/request.js";
import { bmpScreenshotTool, image } from "../../support/images.js";
import { assistant } from "../../support/run.js";
import { firstBodyMatching } from "../support/fixtures.js";
import { closeServersAfterEach, serve } from "../support/loopback.js";
import { type TestApi, testModel } from "../support/models.js";

closeServersAfterEach();

/** A user image and a tool-result image of `mimeType`, and a PNG in the same tool result. */
function conversation(mimeType: string): Message[] {
	return [
		{ role: "user", content: [{ type: "text", text: "Look" }, image(mimeType, "VVNFUg==")], timestamp: 1 },
		assistant([{ type: "toolCall", id: "call_1", name: "screenshot", arguments: {} }], "toolUse"),
		{
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "screenshot",
			content: [{ type: "text", text: "two shots" }, image(mimeType, "VE9PTA=="), image("image/png", "UE5H")],
			isError: false,
			timestamp: 3,
		},
		{ role: "user", content: "What do you see?", timestamp: 4 },
	];
}

const model = (api: TestApi, overrides: Partial<Model> = {}): Model =>
	testModel(api, "http://127.0.0.1:9", { input: ["text", "image"], ...overrides });

/** Every builder, as one function of a model and a context, returning the body's JSON text. */
const builders: Record<TestApi, (model: Model, context: Context) => string> = {
	"anthropic-messages": (m, c) => JSON.stringify(buildAnthropicRequest(m, c, { maxTokens: 1024 })),
	"openai-completions": (m, c) => JSON.stringify(buildOpenAICompletionsRequest(m, c, {})),
	"openai-responses": (m, c) => JSON.stringify(buildResponsesRequest(m, c, {})),
	"google-generative-ai": (m, c) => JSON.stringify(buildGeminiRequest(m, c, {})),
};
const apis = Object.keys(builders) as TestApi[];

describe("images of a type the provider refuses (SPEC C4)", () => {
	it.each(apis)(
		"%s: a BMP goes out as a text naming its type; the PNG beside it goes out as an image",
		(api) => {
			const messages = conversation("image/bmp");
			const before = structuredClone(messages);
			const body = builders[api](model(api), { messages });

			// Neither BMP (user image data VVNFUg==, tool image data VE9PTA==) reaches the wire; the PNG does.
			expect(body).not.toContain("VVNFUg==");
			expect(body).not.toContain("VE9PTA==");
			expect(body).not.toContain("image/bmp;base64");
			expect(body).toContain("UE5H");
			const notes =
				body.match(/image omitted: its type \\"image\/bmp\\" is not one this model accepts/g) ?? [];
			expect(notes).toHaveLength(2);
			// The transcript is the caller's and stays as it was: the images are still there.
			expect(messages).toEqual(before);
		},
	);

	it.each([
		["anthropic-messages", "image/heic", false],
		["anthropic-messages", "image/gif", true],
		["openai-completions", "image/svg+xml", false],
		["openai-completions", "image/gif", true],
		["openai-responses", "image/tiff", false],
		["openai-responses", "image/webp", true],
		["google-generative-ai", "image/gif", false],
		["google-generative-ai", "image/heic", true],
	] as const)("%s: %s is sent: %s (the provider's documented types)", (api, mimeType, sent) => {
		const body = builders[api](model(api), { messages: conversation(mimeType) });
		expect(body.includes("VE9PTA==")).toBe(sent);
		expect(body.includes("image omitted")).toBe(!sent);
	});

	it.each(apis)("%s: image/jpg and upper-case types are sent as the type the provider knows", (api) => {
		const body = builders[api](model(api), { messages: conversation("image/jpg") });
		expect(body).toContain("VE9PTA==");
		expect(body).not.toContain("image/jpg");
		expect(body).toContain("image/jpeg");
		const upper = builders[api](model(api), { messages: conversation("IMAGE/PNG") });
		expect(upper).toContain("VE9PTA==");
		expect(upper).not.toContain("IMAGE/PNG");
	});

	it("compat.imageMimeTypes replaces the list, for a server that takes other types", () => {
		const local = model("openai-completions", { compat: { imageMimeTypes: ["image/png", "image/bmp"] } });
		const body = builders["openai-completions"](local, { messages: conversation("image/bmp") });
		expect(body).toContain("data:image/bmp;base64,VE9PTA==");
		expect(body).not.toContain("image omitted");
	});

	it("a type string a tool made up is quoted short, never whole", () => {
		const odd = `image/x-${"a".repeat(500)}\n`;
		const body = builders["anthropic-messages"](model("anthropic-messages"), { messages: conversation(odd) });
		expect(body).not.toContain("a".repeat(100));
		expect(body).toContain("image omitted");
	});
});

describe("Agent × Anthropic over loopback: a tool's BMP screenshot (SPEC C4)", () => {
	it("every later request carries the note instead of the image, and the transcript keeps the image", async () => {
		const folders = ["anthropic-messages"];
		const server = await serve(
			{ type: "sse", body: firstBodyMatching(folders, "multi_tool_streaming"), split: false },
			{ type: "sse", body: firstBodyMatching(folders, "anthropic-text.chunks"), split: false },
			{ type: "sse", body: firstBodyMatching(folders, "anthropic-text.chunks"), split: false },
		);
		const agent = new Agent({
			model: testModel("anthropic-messages", server.baseUrl, { input: ["text", "image"] }),
			streamOptions: { apiKey: "test-key" },
			tools: [bmpScreenshotTool("add"), bmpScreenshotTool("multiply")],
		});
		await agent.prompt("Add 2 and 3, and multiply them.");
		await agent.prompt("And now?");
		expect(agent.state.error).toBeUndefined();
		expect(server.requests).toHaveLength(3);

		for (const request of server.requests.slice(1)) {
			type Block = { type: string; content?: Block[]; text?: string };
			const body = JSON.parse(request.body) as { messages: { content: Block[] | string }[] };
			const results = body.messages.flatMap((m) =>
				typeof m.content === "string" ? [] : m.content.filter((b) => b.type === "tool_result"),
			);
			expect(results).toHaveLength(2);
			for (const result of results) {
				expect(result.content?.map((b) => b.type)).toEqual(["text", "text"]);
				expect(result.content?.[1]?.text).toContain('image omitted: its type "image/bmp"');
			}
			expect(request.body).not.toContain("Qk1CTVA=");
		}
		const kept = agent.state.messages.filter((m) => m.role === "toolResult");
		expect(kept.flatMap((m) => m.content.map((b) => b.type))).toEqual(["text", "image", "text", "image"]);
	});
});
