/**
 * The system endpoints (spec "System and settings"): status, versions and update, restart,
 * uptime, telemetry, environment settings and the secret reveal.
 */
import type { AppUpdateInfo, DesktopUpdateStatus, EnvEntry, EnvGroup, SystemStatus, TelemetrySample, UpdateRepositoryAnswer, UpdateResult, VersionSummary } from '../../../server/contracts/system.contract.js';
import type { Http } from './http.js';

export type { AppUpdateInfo, EnvEntry, EnvGroup, SystemStatus, TelemetrySample, UpdateResult, VersionSummary };

export interface Uptime {
  started_at: string;
  uptime_seconds: number;
}

export interface TelemetryHistory {
  interval_ms: number;
  window_ms: number;
  samples: TelemetrySample[];
}

export class SystemApi {
  constructor(private readonly http: Http) {}

  status(): Promise<SystemStatus> {
    return this.http.get('/api/admin/system/status');
  }
  uptime(): Promise<Uptime> {
    return this.http.get('/api/admin/system/uptime');
  }
  remoteVersion(): Promise<{ remote: VersionSummary; local: VersionSummary }> {
    return this.http.get('/api/admin/system/remote-version');
  }
  update(skip: string[] = []): Promise<UpdateResult> {
    return this.http.post('/api/admin/system/update', { skip_components: skip });
  }
  /** Which updater applies (the desktop app's own, or the backend's git update) and its state. */
  appUpdate(): Promise<AppUpdateInfo> {
    return this.http.get('/api/admin/system/app-update');
  }
  appUpdateAction(action: 'check' | 'download' | 'install'): Promise<DesktopUpdateStatus> {
    return this.http.post(`/api/admin/system/app-update/${action}`);
  }
  restart(): Promise<{ status: string; message: string }> {
    return this.http.post('/api/admin/system/restart');
  }
  telemetryHistory(): Promise<TelemetryHistory> {
    return this.http.get('/api/admin/telemetry/history');
  }
  envSettings(): Promise<{ groups: EnvGroup[] }> {
    return this.http.get('/api/admin/settings/env');
  }
  setEnv(key: string, value: string): Promise<{ status: string; entry: EnvEntry }> {
    return this.http.put('/api/admin/settings/env', { key, value });
  }
  /** The repository Studio updates itself from (`""` clears it). */
  setUpdateRepository(url: string): Promise<UpdateRepositoryAnswer> {
    return this.http.put('/api/admin/system/update-repository', { url });
  }
  /** Every sensitive value in full; the API key is asked again (403 when it does not match). */
  reveal(apiKey: string): Promise<Record<string, string>> {
    return this.http.post('/api/admin/settings/reveal', { api_key: apiKey });
  }
  extensionUrl(): string {
    return this.http.url('/api/admin/system/browser-extension');
  }
}
