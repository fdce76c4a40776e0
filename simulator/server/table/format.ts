// Cell formats shared by the printers: human durations, label maps and selectors, container lists. The formats
// are those the real server's printers send (kubectl prints the cells as they come).

/** A duration as the real printers write it: 45s, 119s, 5m30s, 12m, 3h20m, 30h, 3d4h, 12d, 2y30d, 9y. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to two seconds in the future counts as "now" (clock skew between machines).
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** Time since a timestamp (RFC 3339), or <unknown> when there is none. */
export function since(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now - t);
}

/** A label map as k=v pairs sorted by key, or <none>. */
export function formatLabels(labels: unknown): string {
  if (!labels || typeof labels !== 'object') return '<none>';
  const keys = Object.keys(labels).sort();
  if (keys.length === 0) return '<none>';
  return keys.map((k) => `${k}=${String((labels as Record<string, unknown>)[k])}`).join(',');
}

interface LabelSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[];
}

/** A label selector written as a selector string (requirements sorted by key), or <none> when it selects everything or nothing. */
export function formatLabelSelector(selector: unknown): string {
  if (!selector || typeof selector !== 'object') return '<none>';
  const sel = selector as { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] };
  const reqs: Array<{ key: string; text: string }> = [];
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push({ key: k, text: `${k}=${v}` });
  for (const e of sel.matchExpressions ?? []) {
    const key = e.key ?? '';
    const values = [...(e.values ?? [])].sort().join(',');
    switch (e.operator) {
      case 'In':
        reqs.push({ key, text: `${key} in (${values})` });
        break;
      case 'NotIn':
        reqs.push({ key, text: `${key} notin (${values})` });
        break;
      case 'Exists':
        reqs.push({ key, text: key });
        break;
      case 'DoesNotExist':
        reqs.push({ key, text: `!${key}` });
        break;
      default:
        return '<error>';
    }
  }
  if (reqs.length === 0) return '<none>';
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return reqs.map((r) => r.text).join(',');
}

/** Container names and images, each comma-separated, for the wide CONTAINERS and IMAGES columns. */
export function containerCells(containers: unknown): [string, string] {
  const list = Array.isArray(containers) ? (containers as Array<{ name?: string; image?: string }>) : [];
  return [list.map((c) => c.name ?? '').join(','), list.map((c) => c.image ?? '').join(',')];
}

/** "True", "False", or <unset> for an optional boolean. */
export function boolPtr(v: unknown): string {
  if (v === undefined || v === null) return '<unset>';
  return v ? 'True' : 'False';
}
