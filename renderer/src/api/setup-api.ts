/**
 * The setup page: what Studio found (GPUs, engine installs, free space), installing, updating and
 * rolling back the engine, and the engine settings.
 */
import type { InstallState, ReleaseList, SetupReport, EngineSettingsWire } from '../../../server/contracts/setup.contract.js';
import type { Http } from './http.js';

export type { EngineSettingsWire, FoundInstall, InstallState, ReleaseList, SetupReport, SetupInstallMessage } from '../../../server/contracts/setup.contract.js';

export class SetupApi {
  constructor(private readonly http: Http) {}

  report(fresh = false): Promise<SetupReport> {
    return this.http.get('/api/admin/setup', fresh ? { fresh: '1' } : undefined);
  }
  firstStart(): Promise<{ first_start: boolean }> {
    return this.http.get('/api/admin/setup/first-start');
  }
  releases(): Promise<ReleaseList> {
    return this.http.get('/api/admin/setup/releases');
  }
  install(version?: string): Promise<InstallState> {
    return this.http.post('/api/admin/setup/engine', version ? { version } : {});
  }
  cancel(): Promise<InstallState> {
    return this.http.delete('/api/admin/setup/engine');
  }
  use(body: { dir: string; python?: string; mode: 'managed' | 'external'; add_models: boolean }): Promise<InstallState | { status: 'switched'; restart: boolean }> {
    return this.http.post('/api/admin/setup/use', body);
  }
  update(version: string): Promise<InstallState> {
    return this.http.post('/api/admin/setup/update', { version });
  }
  rollback(): Promise<{ status: 'switched'; restart: boolean }> {
    return this.http.post('/api/admin/setup/rollback');
  }
  removeVersion(dir: string): Promise<{ removed: string }> {
    return this.http.post('/api/admin/setup/versions/remove', { dir });
  }
  keepStandin(): Promise<{ status: 'standin' }> {
    return this.http.post('/api/admin/setup/standin');
  }
  saveSettings(settings: Partial<EngineSettingsWire>): Promise<EngineSettingsWire & { restart_needed: boolean }> {
    return this.http.put('/api/admin/setup/settings', settings);
  }
  restartEngine(): Promise<unknown> {
    return this.http.post('/api/admin/engine/restart');
  }
}
