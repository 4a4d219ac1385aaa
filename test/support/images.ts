/** Images for the image-type tests (rule C4): an image block, and a tool that returns a BMP screenshot. */
import type { ImageContent } from "../../src/core/messages.js";
import type { AgentTool } from "../../src/index.js";

/** An image block of `mimeType`. */
export const image = (mimeType: string, data = "QUJD"): ImageContent => ({ type: "image", data, mimeType });

/** A tool named `name` whose result is its text and a BMP image, a type no major API takes. */
export const bmpScreenshotTool = (name: string): AgentTool => ({
	name,
	description: name,
	parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
	execute: async () => ({
		content: [{ type: "text", text: `${name} done` }, image("image/bmp", "Qk1CTVA=")],
	}),
});
