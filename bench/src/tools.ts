/**
 * The tools of the workloads, in no library's vocabulary: a name, flat typed fields (each adapter builds its
 * own library's schema from them — TypeBox, zod or JSON Schema — so every library validates the arguments
 * the way its users' tools do), and the work itself.
 */

/** The JSON type of one argument field. */
export type FieldType = "string" | "number";

/** One tool as every adapter receives it. */
export interface BenchTool {
	name: string;
	description: string;
	fields: Record<string, FieldType>;
	run(args: Record<string, unknown>): Promise<string>;
}
