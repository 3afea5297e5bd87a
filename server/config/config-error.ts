/** A configuration the process cannot run with; main prints it and exits non-zero. */
export class ConfigError extends Error {}
