/**
 * What the LLM capability uses of the LLM catalog: its entries (the fit estimates) and adding one
 * (a GGUF file from a repository). The composition root hands over the catalog's implementation
 * (`catalog/llm-catalog-access.ts`); nothing here imports the catalog.
 */
export interface LlmCatalog {
  entries(): Array<{ file: string; size_gb: number }>;
  add(entry: { name: string; file: string; dest: string; size_gb: number; tags: string[]; source: 'repohost'; hosted_repo: string; repo_path?: string; sha256?: string }, category: { id: string; name: string }): Promise<boolean>;
}

