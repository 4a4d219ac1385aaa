/**
 * Reliability: any unhandled rejection or uncaught exception fails the test during which it happened.
 * Vitest alone already fails the whole run on one (exit code 1, "Unhandled Errors"), but reports every test as
 * passed; recording them here names the test that leaked, which is what a regression hunt needs.
 * (A rejection surfacing after its test's `afterEach` is still caught by Vitest's own report.)
 */
import { afterEach } from "vitest";

const leaked: { kind: string; error: unknown }[] = [];
let expected = 0;

/** For a test that creates an unhandled rejection on purpose: the next `count` ones are not leaks. */
export function expectUnhandledRejections(count = 1): void {
	expected += count;
}

process.on("unhandledRejection", (error) => {
	if (expected > 0) expected--;
	else leaked.push({ kind: "unhandled rejection", error });
});
process.on("uncaughtException", (error) => leaked.push({ kind: "uncaught exception", error }));

afterEach(async () => {
	// Let a rejection created at the very end of the test reach the handler first.
	await new Promise<void>((resolve) => setImmediate(resolve));
	expected = 0;
	if (leaked.length === 0) return;
	const found = leaked.splice(0);
	const lines = found.map(
		({ kind, error }) => `${kind}: ${error instanceof Error ? error.stack : String(error)}`,
	);
	throw new Error(`The test leaked ${found.length} unhandled error(s):\n${lines.join("\n")}`);
});
