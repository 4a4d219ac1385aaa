/**
 * `capstan/otel`: OpenTelemetry spans for capstan runs (rule X3), following the GenAI semantic conventions.
 * Needs `@opentelemetry/api` (an optional peer dependency); the core `capstan` entry never loads it.
 */
export { type OpenTelemetryOptions, openTelemetry } from "./telemetry/otel.js";
