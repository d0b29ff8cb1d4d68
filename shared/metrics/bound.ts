// Label cardinality, bounded. strategy, profile, result, action, outcome, state, target, code
// and method come from fixed sets (the policy, the code). namespace, node, host, worker and
// kind come from the cluster, and a cluster with 50,000 nodes or a namespace per CI run would
// otherwise make a series each, forever (the descheduler does not bound them). So: per metric
// and label, the first MAX_VALUES distinct values are kept and later ones are counted under
// OTHER; every value is cut to MAX_LENGTH characters. The SDK's own cardinality limit (2,000
// series per instrument, then one overflow series) stays as the last line.

export const OTHER = '_other';
export const MAX_VALUES = 200;
export const MAX_LENGTH = 128;

export class LabelBound {
  /** Per metric, per label, the values kept: maps by name, so a recorded value costs lookups, not a key built per label. */
  private readonly seen = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly maxValues = MAX_VALUES) {}

  /** `labels` with every value bounded, for metric `metric`. */
  bound(metric: string, labels: Record<string, string>): Record<string, string> {
    let byLabel: Map<string, Set<string>> | undefined = this.seen.get(metric);
    if (!byLabel) this.seen.set(metric, (byLabel = new Map()));
    const out: Record<string, string> = {};
    for (const label in labels) {
      const raw = labels[label]!;
      const value = raw.length > MAX_LENGTH ? raw.slice(0, MAX_LENGTH) : raw;
      let values: Set<string> | undefined = byLabel.get(label);
      if (!values) byLabel.set(label, (values = new Set()));
      if (values.has(value)) out[label] = value;
      else if (values.size < this.maxValues) out[label] = (values.add(value), value);
      else out[label] = OTHER;
    }
    return out;
  }
}
