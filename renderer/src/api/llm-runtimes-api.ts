/**
 * The llama.cpp runtimes and "any GGUF from a repository" endpoints (README "LLM runtimes",
 * "LLM: any GGUF").
 */
import type { RuntimeJob, RuntimesView } from '../../../server/contracts/llm-runtimes.contract.js';
import type { RepoGgufView } from '../../../server/contracts/llm-repo.contract.js';
import type { Http } from './http.js';

export type { RepoGgufView, RuntimesView };

export class LlmRuntimesApi {
  constructor(private readonly http: Http) {}

  runtimes(refresh = false): Promise<RuntimesView> {
    return this.http.get('/api/admin/llm/runtimes', refresh ? { refresh: '1' } : undefined);
  }
  install(asset?: string): Promise<{ status: string; job: RuntimeJob }> {
    return this.http.post('/api/admin/llm/runtimes/install', asset ? { asset } : {});
  }
  build(): Promise<{ status: string; job: RuntimeJob }> {
    return this.http.post('/api/admin/llm/runtimes/build', {});
  }
  cancelBuild(): Promise<{ status: string; job: RuntimeJob }> {
    return this.http.post('/api/admin/llm/runtimes/build/cancel', {});
  }
  activate(id: string): Promise<{ status: string; active: string }> {
    return this.http.post('/api/admin/llm/runtimes/activate', { id });
  }
  rollback(): Promise<{ status: string; active: string }> {
    return this.http.post('/api/admin/llm/runtimes/rollback');
  }
  remove(id: string): Promise<{ status: string }> {
    return this.http.delete(`/api/admin/llm/runtimes/${encodeURIComponent(id)}`);
  }
  repoFiles(repo: string): Promise<RepoGgufView> {
    return this.http.get('/api/admin/llm/repo-files', { repo });
  }
  addRepoFile(repo: string, path: string): Promise<{ status: 'added' | 'exists'; file: string }> {
    return this.http.post('/api/admin/llm/repo-files/add', { repo, path });
  }
}
