/**
 * Image types a provider takes (rule C4). An image block of a type the provider refuses (a BMP or an SVG a tool
 * returned, say) would fail the request, and every later one, since the image stays in the transcript. The
 * request builders send such an image as a short text saying it was left out; the transcript is not changed.
 * Only image blocks are looked at, so a request without images costs nothing more.
 */
import type { ImageContent } from "../../core/messages.js";
import type { Model } from "../../core/model.js";

/** What a request carries in place of an image, for a model that takes no image input at all. */
export const IMAGE_OMITTED_TEXT = "(image omitted: this model does not accept images)";

/** Anthropic Messages: `image.source.media_type` is one of these. */
export const ANTHROPIC_IMAGE_TYPES: readonly string[] = [
	"image/jpeg",
	"image/png",
	"image/gif",
	"image/webp",
];

/** OpenAI Chat Completions and Responses: PNG, JPEG, WebP and (non-animated) GIF. */
export const OPENAI_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

/** Gemini: PNG, JPEG, WebP, HEIC and HEIF (no GIF). */
export const GEMINI_IMAGE_TYPES: readonly string[] = [
	"image/png",
	"image/jpeg",
	"image/webp",
	"image/heic",
	"image/heif",
];

/**
 * AI SDK models: the types Anthropic, OpenAI and Gemini all take. The bridge cannot tell which API is behind an
 * AI SDK model, and its providers pass any image type on, so it sends only the types every major API takes;
 * a model's `compat.imageMimeTypes` widens the list (GIF for Anthropic, OpenAI, Bedrock or Mistral, say).
 */
export const AI_SDK_IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/webp"];

/**
 * The types `model` takes: its `compat.imageMimeTypes` (a server that takes other types than its API's
 * usual ones, e.g. a local OpenAI-compatible server), else the API's list.
 */
function acceptedTypes(model: Model, usual: readonly string[]): readonly string[] {
	const own = model.compat?.imageMimeTypes;
	return Array.isArray(own) && own.every((type) => typeof type === "string") ? own : usual;
}

/**
 * The MIME type to send an image of type `mimeType` as, or `undefined` when the provider cannot take it.
 * Types are compared without case, and `image/jpg` is sent as `image/jpeg`.
 */
function sendableImageType(model: Model, mimeType: string, usual: readonly string[]): string | undefined {
	const accepted = acceptedTypes(model, usual);
	if (accepted.includes(mimeType)) return mimeType;
	const lower = typeof mimeType === "string" ? mimeType.trim().toLowerCase() : "";
	const canonical = lower === "image/jpg" ? "image/jpeg" : lower;
	return accepted.includes(canonical) ? canonical : undefined;
}

/** Longest MIME type quoted back to the model; a tool's type string is not trusted to be short. */
const MAX_SHOWN_TYPE = 80;

/** The text sent in place of an image of a type the provider cannot take. */
function unsupportedImageText(model: Model, mimeType: string, usual: readonly string[]): string {
	const raw = typeof mimeType === "string" ? mimeType : "";
	const shown = raw.length > MAX_SHOWN_TYPE ? `${raw.slice(0, MAX_SHOWN_TYPE)}…` : raw;
	const type = shown.length > 0 ? JSON.stringify(shown) : "(none)";
	const accepted = acceptedTypes(model, usual).join(", ");
	return `(image omitted: its type ${type} is not one this model accepts: ${accepted})`;
}

/**
 * How an image goes out to a provider whose API takes the `usual` types: its MIME type as the API spells it,
 * or the text sent in its place — for a model that takes no images at all, or a type the model cannot take.
 */
export function imageToSend(
	model: Model,
	image: ImageContent,
	usual: readonly string[],
): { mimeType: string } | { note: string } {
	if (!model.input.includes("image")) return { note: IMAGE_OMITTED_TEXT };
	const mimeType = sendableImageType(model, image.mimeType, usual);
	return mimeType === undefined ? { note: unsupportedImageText(model, image.mimeType, usual) } : { mimeType };
}
