/**
 * SPEC C4 through the AI SDK bridge: an image the model cannot take goes as the same short text the native
 * request builders send. AI SDK providers pass any image type on (`@ai-sdk/openai-compatible` puts a BMP in an
 * `image_url`), so the bridge sends only PNG, JPEG and WebP, the types Anthropic, OpenAI and Gemini all take,
 * unless the model's `compat.imageMimeTypes` lists its API's own. The transcript keeps every image.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { describe, expect, it } from "vitest";
import { aiSdkModel } from "../../src/ai-sdk/index.js";
import type { Message } from "../../src/core/messages.js";
import { Agent } from "../../src/index.js";
import { IMAGE_OMITTED_TEXT } from "../../src/providers/base/images.js";
import { collectStream } from "../providers/support/collect.js";
import { firstBodyMatching } from "../providers/support/fixtures.js";
import { closeServersAfterEach, serve } from "../providers/support/loopback.js";
import { bmpScreenshotTool, image } from "../support/images.js";
import { assistant } from "../support/run.js";
import { finishV3, mockV2, mockV3 } from "./support.js";

closeServersAfterEach();

const BMP_NOTE =
	'image omitted: its type "image/bmp" is not one this model accepts: image/png, image/jpeg, image/webp';

/** A user turn and a tool result, each with an image of `mimeType` beside a PNG. */
function conversation(mimeType: string): Message[] {
	return [
		{
			role: "user",
			content: [{ type: "text", text: "Look" }, image(mimeType, "VVNFUg=="), image("image/png", "UE5H")],
			timestamp: 1,
		},
		assistant([{ type: "toolCall", id: "call_1", name: "screenshot", arguments: {} }], "toolUse"),
		{
			role: "toolResult",
			toolCallId: "call_1",
			toolName: "screenshot",
			content: [{ type: "text", text: "two shots" }, image(mimeType, "VE9PTA=="), image("image/png", "UE5H")],
			isError: false,
			timestamp: 3,
		},
	];
}

/** The prompt a V3 mock model receives for `messages`, with `model` overrides. */
async function promptFor(messages: Message[], model: Parameters<typeof aiSdkModel>[1] = {}) {
	const lm = mockV3([finishV3("stop")]);
	const bridge = aiSdkModel(lm, model);
	await collectStream(bridge.streamFn(bridge.model, { messages }));
	return lm.doStreamCalls[0]?.prompt ?? [];
}

describe("images an AI SDK model cannot take (SPEC C4)", () => {
	it("a BMP goes as a text naming its type, the PNG beside it as an image; the transcript keeps both", async () => {
		const messages = conversation("image/bmp");
		const before = structuredClone(messages);
		const prompt = await promptFor(messages);
		expect(prompt[0]).toEqual({
			role: "user",
			content: [
				{ type: "text", text: "Look" },
				{ type: "text", text: `(${BMP_NOTE})` },
				{ type: "file", data: "UE5H", mediaType: "image/png" },
			],
		});
		expect(prompt[2]).toMatchObject({
			role: "tool",
			content: [
				{
					output: {
						type: "content",
						value: [
							{ type: "text", text: "two shots" },
							{ type: "text", text: `(${BMP_NOTE})` },
							{ type: "image-data", data: "UE5H", mediaType: "image/png" },
						],
					},
				},
			],
		});
		expect(messages).toEqual(before);
	});

	it.each([
		["image/gif", false],
		["image/heic", false],
		["image/svg+xml", false],
		["image/webp", true],
		["image/jpeg", true],
	])(
		"by default %s is sent: %s (the types Anthropic, OpenAI and Gemini all take)",
		async (mimeType, sent) => {
			const text = JSON.stringify(await promptFor(conversation(mimeType)));
			expect(text.includes("VE9PTA==")).toBe(sent);
			expect(text.includes("VVNFUg==")).toBe(sent);
			expect(text.includes("image omitted")).toBe(!sent);
		},
	);

	it("image/jpg and upper-case types go as the type APIs know", async () => {
		const prompt = JSON.stringify(await promptFor(conversation("image/jpg")));
		expect(prompt).toContain('"data":"VE9PTA==","mediaType":"image/jpeg"');
		expect(prompt).not.toContain("image/jpg");
		expect(JSON.stringify(await promptFor(conversation("IMAGE/PNG")))).not.toContain("IMAGE/PNG");
	});

	it("compat.imageMimeTypes replaces the list: GIF for a model whose API takes it", async () => {
		const gif = { model: { compat: { imageMimeTypes: ["image/png", "image/gif"] } } };
		const text = JSON.stringify(await promptFor(conversation("image/gif"), gif));
		expect(text).toContain('"data":"VE9PTA==","mediaType":"image/gif"');
		expect(text).not.toContain("image omitted");
		// The list replaces the default: WebP is no longer sent to this model.
		expect(JSON.stringify(await promptFor(conversation("image/webp"), gif))).toContain(
			'its type \\"image/webp\\" is not one this model accepts: image/png, image/gif',
		);
	});

	it("a model declared text-only gets the note for every image, as the native providers send it", async () => {
		const prompt = await promptFor(conversation("image/png"), { model: { input: ["text"] } });
		const text = JSON.stringify(prompt);
		expect(text).not.toContain("UE5H");
		expect(prompt[0]?.content).toEqual([
			{ type: "text", text: "Look" },
			{ type: "text", text: IMAGE_OMITTED_TEXT },
			{ type: "text", text: IMAGE_OMITTED_TEXT },
		]);
		// No image left: the tool result is plain text.
		expect(prompt[2]).toMatchObject({
			content: [
				{ output: { type: "text", value: `two shots\n${IMAGE_OMITTED_TEXT}\n${IMAGE_OMITTED_TEXT}` } },
			],
		});
	});

	it("V2: the tool-result BMP goes as the note, the PNG as `media`", async () => {
		const lm = mockV2([
			{ type: "finish", finishReason: "stop", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } },
		]);
		const { model, streamFn } = aiSdkModel(lm);
		await collectStream(streamFn(model, { messages: conversation("image/bmp") }));
		expect(lm.doStreamCalls[0]?.prompt[2]).toMatchObject({
			content: [
				{
					output: {
						type: "content",
						value: [
							{ type: "text", text: "two shots" },
							{ type: "text", text: `(${BMP_NOTE})` },
							{ type: "media", data: "UE5H", mediaType: "image/png" },
						],
					},
				},
			],
		});
	});

	it("an error result still goes as its text alone: no image, no note", async () => {
		const messages = conversation("image/bmp");
		const result = messages[2];
		if (result?.role !== "toolResult") throw new Error("no tool result");
		result.isError = true;
		const prompt = await promptFor(messages);
		expect(prompt[2]).toMatchObject({ content: [{ output: { type: "error-text", value: "two shots" } }] });
	});
});

describe("Agent × @ai-sdk/openai-compatible over loopback: a tool's BMP screenshot (SPEC C4)", () => {
	it("no request carries the BMP, every later one carries the note; the transcript keeps the image", async () => {
		const folders = ["openai-chat"];
		const server = await serve(
			{ type: "sse", body: firstBodyMatching(folders, "multi_tool_streaming"), split: false },
			{ type: "sse", body: firstBodyMatching(folders, "openai-text.chunks"), split: false },
			{ type: "sse", body: firstBodyMatching(folders, "openai-text.chunks"), split: false },
		);
		const provider = createOpenAICompatible({
			name: "replay",
			baseURL: `${server.baseUrl}/v1`,
			apiKey: "test-key",
			includeUsage: true,
		});
		const agent = new Agent({
			...aiSdkModel(provider.chatModel("gpt-5")),
			tools: [bmpScreenshotTool("add"), bmpScreenshotTool("multiply")],
		});
		await agent.prompt("Add 2 and 3, and multiply them. Here is a sketch:", [
			image("image/bmp", "VVNFUg=="),
			image("image/png", "UE5H"),
		]);
		await agent.prompt("And now?");
		expect(agent.state.error).toBeUndefined();
		expect(server.requests).toHaveLength(3);
		for (const request of server.requests) {
			expect(request.body).not.toContain("Qk1CTVA=");
			expect(request.body).not.toContain("VVNFUg==");
			expect(request.body).not.toContain("data:image/bmp");
			const user = JSON.parse(request.body).messages[0];
			expect(user.content).toEqual([
				{ type: "text", text: "Add 2 and 3, and multiply them. Here is a sketch:" },
				{ type: "text", text: `(${BMP_NOTE})` },
				{ type: "image_url", image_url: { url: "data:image/png;base64,UE5H" } },
			]);
		}
		// Every request after the tools ran carries both results, each with the note in place of its BMP.
		for (const request of server.requests.slice(1)) {
			const tools = JSON.parse(request.body).messages.filter((m: { role: string }) => m.role === "tool");
			expect(tools.map((m: { content: unknown }) => m.content)).toEqual([
				`add done\n(${BMP_NOTE})`,
				`multiply done\n(${BMP_NOTE})`,
			]);
		}
		const results = agent.state.messages.filter((message) => message.role === "toolResult");
		expect(results).toHaveLength(2);
		for (const result of results) expect(result.content).toContainEqual(image("image/bmp", "Qk1CTVA="));
	});
});
