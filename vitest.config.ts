import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts", "src/**/*.test.ts"],
		testTimeout: 20_000,
		// Vitest's default is one worker fewer than the CPUs: a single worker on CI's two vCPUs, where the suite
		// took 373 s. Much of it waits on child processes, PostgreSQL, Restate and tmux, so two workers there
		// finish in 233 s (three: no faster). Files that share a service each make their own database or
		// service name, so they run side by side.
		maxWorkers: Math.max(2, availableParallelism() - 1),
		// Reliability: a test that leaks an unhandled rejection or uncaught exception fails by name.
		setupFiles: ["test/support/global-handlers.ts"],
	},
});
