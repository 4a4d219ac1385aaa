/**
 * `capstan/testing`: tools for testing agents built on capstan without a network — a scripted model that
 * streams real event sequences, with helpers for the common replies.
 */
export {
	errorReply,
	type Script,
	type ScriptedBlock,
	type ScriptedCall,
	type ScriptedModel,
	type ScriptedModelOptions,
	type ScriptedReply,
	scriptedModel,
	textReply,
	toolReply,
} from "./scripted-model.js";
