// The openreports.io/v1alpha1 Report as kube-tidy writes it: the fields of the module's Go
// types (github.com/openreports/reports-api, apis/openreports.io/v1alpha1/report_types.go)
// that kube-tidy sets, in their JSON names (ReportResult.Subjects is `resources`, its
// Description `message`).

export type ResultStatus = 'pass' | 'fail' | 'warn' | 'error' | 'skip';
export type ResultSeverity = 'critical' | 'high' | 'medium' | 'low' | 'info';

export interface ObjectReference {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export interface ReportResult {
  source: string;
  policy: string;
  rule: string;
  category: string;
  result: ResultStatus;
  severity: ResultSeverity;
  scored: boolean;
  /** metav1.Timestamp: both fields are required by the CRD. */
  timestamp: { seconds: number; nanos: number };
  resources: ObjectReference[];
  message: string;
  properties: Record<string, string>;
}

export type ReportSummary = Record<ResultStatus, number>;

export interface Report {
  apiVersion: 'openreports.io/v1alpha1';
  kind: 'Report';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  source: string;
  configuration: { limits: { maxResults: number } };
  summary: ReportSummary;
  results: ReportResult[];
}
