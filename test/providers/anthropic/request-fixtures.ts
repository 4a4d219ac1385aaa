/** Shared inputs of the Anthropic request and replay tests. */
import type { ToolSpec } from "../../../src/core/model.js";
import { readFileTool, repliesOf } from "../support/transcript.js";
import { testModel } from "./helpers.js";

/** The model requests are built for (never contacted). */
export const model = testModel("http://127.0.0.1:1");

/** A file reader and a folder lister. */
export const tools: ToolSpec[] = [
	readFileTool("read"),
	{ name: "ls", description: "List a folder", parameters: { type: "object", properties: {} } },
];

/** An earlier reply of `model`. */
export const assistant = repliesOf(model);
