import type { Node, Pod, PodAffinityTerm } from '../../model/objects.js';
import { compileLabelSelector, type LabelMatcher } from '../../policy/label-selector.js';

// Required pod anti-affinity, for any topology key: two pods conflict when one holds a term
// that matches the other and both sit in the same domain (nodes with the same value of the
// term's topologyKey; kubernetes.io/hostname makes every node its own domain). A node
// without the key is in no domain and constrains nothing, as in the scheduler.

export interface Term {
  key: string;
  topology: number;
  /** Undefined: every namespace (also the conservative reading of a namespaceSelector). */
  namespaces?: ReadonlySet<string>;
  matches: LabelMatcher;
}

export interface Topology {
  key: string;
  /** Domain id per node index, -1 when the node lacks the label. */
  domainOf: Int32Array;
  domains: number;
}

export class AntiAffinityIndex {
  readonly terms: Term[] = [];
  readonly topologies: Topology[] = [];
  private readonly termIds = new Map<string, number>();
  private readonly topologyIds = new Map<string, number>();

  constructor(private readonly nodes: readonly Node[]) {}

  /** The ids of the pod's required anti-affinity terms, interning new ones. */
  termsOf(pod: Pod): number[] {
    const raw = pod.spec?.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? [];
    return raw.map((t) => this.intern(t, pod.metadata.namespace ?? ''));
  }

  private intern(t: PodAffinityTerm, ownNamespace: string): number {
    const selectorNs = t.namespaceSelector !== undefined;
    // An empty namespaces list means the pod's own namespace; a namespaceSelector (whose
    // namespace labels the planner does not read) is taken as all namespaces: over-strict,
    // never allowing a placement the scheduler would refuse.
    const namespaces = selectorNs ? undefined : t.namespaces?.length ? [...t.namespaces].sort() : [ownNamespace];
    const key = JSON.stringify([t.topologyKey, namespaces ?? '*', t.labelSelector ?? null]);
    let id = this.termIds.get(key);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push({
        key,
        topology: this.topology(t.topologyKey),
        namespaces: namespaces ? new Set(namespaces) : undefined,
        // A term without a labelSelector matches no pod (metav1 semantics for affinity terms).
        matches: t.labelSelector ? compileLabelSelector(t.labelSelector) : () => false,
      });
      this.termIds.set(key, id);
    }
    return id;
  }

  private topology(key: string): number {
    let id = this.topologyIds.get(key);
    if (id !== undefined) return id;
    const values = new Map<string, number>();
    const domainOf = new Int32Array(this.nodes.length);
    this.nodes.forEach((n, i) => {
      const v = n.metadata.labels?.[key];
      if (v === undefined) domainOf[i] = -1;
      else {
        let d = values.get(v);
        if (d === undefined) values.set(v, (d = values.size));
        domainOf[i] = d;
      }
    });
    id = this.topologies.length;
    this.topologies.push({ key, domainOf, domains: values.size });
    this.topologyIds.set(key, id);
    return id;
  }

  /** Terms (by id, among those interned so far) whose selector matches this pod. */
  matchedBy(pod: Pod): number[] {
    const out: number[] = [];
    const ns = pod.metadata.namespace ?? '';
    this.terms.forEach((t, id) => {
      if ((t.namespaces === undefined || t.namespaces.has(ns)) && t.matches(pod.metadata.labels)) out.push(id);
    });
    return out;
  }

  describe(term: number): string {
    const t = this.terms[term]!;
    const [topologyKey, , selector] = JSON.parse(t.key) as [string, unknown, unknown];
    return `anti-affinity ${JSON.stringify(selector)} per ${topologyKey}`;
  }
}
