/**
 * Secret redaction for text leaving the provider layer; it lives in `core/redact.ts`, because the loop masks
 * the key in what a host's stream function throws too (rule E3, L12).
 */
export { REDACTED, redactSecrets, requestCredentials } from "../../core/redact.js";
