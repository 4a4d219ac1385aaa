import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts", "src/**/*.test.ts"],
		testTimeout: 20_000,
		// Reliability: a test that leaks an unhandled rejection or uncaught exception fails by name.
		setupFiles: ["test/support/global-handlers.ts"],
	},
});
