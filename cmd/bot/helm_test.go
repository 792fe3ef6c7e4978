package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The Helm chart (deploy/helm/switchboard) is checked here, beside the
// settings it sets: TestHelmChart renders it with `helm template` and
// reads the manifests. scripts/helm-check.sh installs helm, lints the chart
// and runs it (CI step "helm"); go test ./... runs it too where helm is
// installed, and skips it elsewhere.

// chartDir is the chart, from this package.
const chartDir = "../../deploy/helm/switchboard"

// helmBinary finds helm: $HELM (scripts/helm-check.sh sets it), PATH, or
// where go install puts it.
func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	if h, err := exec.LookPath("helm"); err == nil {
		return h
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	h := filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "bin", "helm")
	if _, err := os.Stat(h); err == nil {
		return h
	}
	// Not a failure even under CI=true: CI's "helm" step installs helm and
	// runs this test with HELM set, where a missing helm fails.
	t.Skip("helm not found: scripts/helm-check.sh installs it and runs this test")
	return ""
}

// chart is a copy of the chart in a temporary folder, rendered by helm.
// The copy is read here, so that go test's cache knows the test depends on
// the chart's files; it also gets a template that renders NOTES.txt, which
// helm template leaves out.
type chart struct {
	helm, dir string
}

func newChart(t *testing.T) *chart {
	t.Helper()
	c := &chart{helm: helmBinary(t), dir: filepath.Join(t.TempDir(), "switchboard")}
	err := filepath.WalkDir(chartDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(chartDir, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(c.dir, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(c.dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	notes, err := os.ReadFile(filepath.Join(chartDir, "templates", "NOTES.txt"))
	if err != nil {
		t.Fatal(err)
	}
	wrapper := `{{- define "test.notes" }}` + string(notes) + "{{ end }}\n" +
		"# Source: test/notes\nkind: TestNotes\nnotes: {{ include \"test.notes\" . | toJson }}\n"
	if err := os.WriteFile(filepath.Join(c.dir, "templates", "test-notes.yaml"), []byte(wrapper), 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// render runs helm template with args (--set, -f, --api-versions…) and
// returns the manifests it printed, or helm's error.
func (c *chart) render(t *testing.T, args ...string) (*rendered, error) {
	t.Helper()
	cmd := exec.Command(c.helm, append([]string{"template", "t", c.dir, "--namespace", "bots"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("run %s: %v", c.helm, err)
		}
		return nil, errors.New(strings.TrimSpace(stderr.String()))
	}
	if s := stderr.String(); s != "" {
		t.Errorf("helm template %v warned:\n%s", args, s)
	}
	r := &rendered{}
	dec := yaml.NewDecoder(&stdout)
	for {
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("helm template %v printed YAML that does not parse: %v", args, err)
		}
		if m.Kind == "TestNotes" {
			r.notes = m.Notes
			continue
		}
		if m.Kind != "" {
			r.objects = append(r.objects, m)
		}
	}
	return r, nil
}

// mustRender is render that fails the test on an error.
func (c *chart) mustRender(t *testing.T, args ...string) *rendered {
	t.Helper()
	r, err := c.render(t, args...)
	if err != nil {
		t.Fatalf("helm template %v: %v", args, err)
	}
	return r
}

// rendered is what one helm template printed.
type rendered struct {
	objects []manifest
	notes   string
}

// get returns the object of that kind, or nil.
func (r *rendered) get(kind string) *manifest {
	for i := range r.objects {
		if r.objects[i].Kind == kind {
			return &r.objects[i]
		}
	}
	return nil
}

func (r *rendered) kinds() []string {
	var out []string
	for _, m := range r.objects {
		out = append(out, m.Kind)
	}
	slices.Sort(out)
	return out
}

// manifest holds the fields of the chart's objects that the test reads.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name        string            `yaml:"name"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas *int `yaml:"replicas"`
		Strategy struct {
			Type string `yaml:"type"`
		} `yaml:"strategy"`
		Template    podTemplate `yaml:"template"` // Deployment, Job
		JobTemplate struct {
			Spec struct {
				Template podTemplate `yaml:"template"`
			} `yaml:"spec"`
		} `yaml:"jobTemplate"` // CronJob
		Schedule string `yaml:"schedule"`
		Rules    []struct {
			Host string `yaml:"host"`
			HTTP struct {
				Paths []struct {
					Path     string `yaml:"path"`
					PathType string `yaml:"pathType"`
					Backend  struct {
						Service struct {
							Name string `yaml:"name"`
							Port struct {
								Name string `yaml:"name"`
							} `yaml:"port"`
						} `yaml:"service"`
					} `yaml:"backend"`
				} `yaml:"paths"`
			} `yaml:"http"`
		} `yaml:"rules"` // Ingress
		TLS []struct {
			SecretName string `yaml:"secretName"`
		} `yaml:"tls"`
		Selector  map[string]any `yaml:"selector"`
		Endpoints []struct {
			Port string `yaml:"port"`
			Path string `yaml:"path"`
		} `yaml:"endpoints"` // ServiceMonitor
		MaxUnavailable any `yaml:"maxUnavailable"` // PodDisruptionBudget
	} `yaml:"spec"`
	Notes string `yaml:"notes"` // the test's NOTES.txt wrapper
}

type podTemplate struct {
	Metadata struct {
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		SecurityContext struct {
			RunAsNonRoot *bool `yaml:"runAsNonRoot"`
			RunAsUser    *int  `yaml:"runAsUser"`
		} `yaml:"securityContext"`
		AutomountServiceAccountToken *bool       `yaml:"automountServiceAccountToken"`
		TerminationGracePeriod       *int        `yaml:"terminationGracePeriodSeconds"`
		Containers                   []container `yaml:"containers"`
		Volumes                      []struct {
			Name     string         `yaml:"name"`
			EmptyDir map[string]any `yaml:"emptyDir"`
			PVC      *struct {
				ClaimName string `yaml:"claimName"`
				ReadOnly  bool   `yaml:"readOnly"`
			} `yaml:"persistentVolumeClaim"`
		} `yaml:"volumes"`
	} `yaml:"spec"`
}

type container struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name      string  `yaml:"name"`
		Value     *string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name     string `yaml:"name"`
				Key      string `yaml:"key"`
				Optional *bool  `yaml:"optional"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	StartupProbe   *probe `yaml:"startupProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
		ReadOnly  bool   `yaml:"readOnly"`
	} `yaml:"volumeMounts"`
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

// env returns the plain value of an environment variable ("" and false if
// it has none).
func (c container) env(name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name && e.Value != nil {
			return *e.Value, true
		}
	}
	return "", false
}

// workloads are the pod templates of the Deployments, Jobs and CronJobs.
func (r *rendered) workloads() map[string]podTemplate {
	out := map[string]podTemplate{}
	for _, m := range r.objects {
		switch m.Kind {
		case "Deployment", "Job":
			out[m.Kind+"/"+m.Metadata.Name] = m.Spec.Template
		case "CronJob":
			out[m.Kind+"/"+m.Metadata.Name] = m.Spec.JobTemplate.Spec.Template
		}
	}
	return out
}

// secretSettings are the settings Config marks secret.
func secretSettings() []string {
	var out []string
	for _, s := range settingsDocs() {
		if s.secret {
			out = append(out, s.name)
		}
	}
	slices.Sort(out)
	return out
}

// checkWorkloads checks what every pod of the chart must have, whatever
// the values: resources, a non-root read-only container, secrets only
// referenced, the data folder and /tmp writable; and for `serve`, the
// probes on /healthz and /readyz.
func checkWorkloads(t *testing.T, r *rendered) {
	t.Helper()
	secret := secretSettings()
	if r.get("Secret") != nil || r.get("ConfigMap") != nil {
		t.Errorf("the chart rendered a Secret or ConfigMap (%v): settings are env, secrets references", r.kinds())
	}
	for name, pod := range r.workloads() {
		if sc := pod.Spec.SecurityContext; !isTrue(sc.RunAsNonRoot) || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
			t.Errorf("%s: the pod may run as root", name)
		}
		if a := pod.Spec.AutomountServiceAccountToken; a == nil || *a {
			t.Errorf("%s: the pod mounts a ServiceAccount token; the bot calls no Kubernetes API", name)
		}
		volumes := map[string]bool{}
		for _, v := range pod.Spec.Volumes {
			volumes[v.Name] = true
		}
		if len(pod.Spec.Containers) == 0 {
			t.Errorf("%s: no containers", name)
		}
		for _, c := range pod.Spec.Containers {
			where := name + " container " + c.Name
			if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" || c.Resources.Limits["memory"] == "" {
				t.Errorf("%s: resources want requests.cpu, requests.memory and limits.memory, got %+v", where, c.Resources)
			}
			s := c.SecurityContext
			if !isTrue(s.ReadOnlyRootFilesystem) || s.AllowPrivilegeEscalation == nil || *s.AllowPrivilegeEscalation || !slices.Contains(s.Capabilities.Drop, "ALL") {
				t.Errorf("%s: want readOnlyRootFilesystem, allowPrivilegeEscalation false and capabilities.drop ALL", where)
			}
			for _, e := range c.Env {
				if !slices.Contains(secret, e.Name) {
					continue
				}
				if e.Value != nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Key == "" {
					t.Errorf("%s: %s is a secret setting but is not read from a Secret's key", where, e.Name)
				} else if e.Name == "DATABASE_URL" && (e.ValueFrom.SecretKeyRef.Optional == nil || *e.ValueFrom.SecretKeyRef.Optional) {
					t.Errorf("%s: DATABASE_URL's Secret key is optional: a missing one would leave each replica on its own embedded store", where)
				}
			}
			// The bot writes only its data folder (SWITCHBOARD_DATA_DIR)
			// and temporary files: both must be volumes.
			dataDir, ok := c.env("SWITCHBOARD_DATA_DIR")
			if !ok {
				t.Errorf("%s: SWITCHBOARD_DATA_DIR not set", where)
			}
			mounts := map[string]string{}
			for _, m := range c.VolumeMounts {
				if !volumes[m.Name] {
					t.Errorf("%s: mounts volume %q, which the pod does not have", where, m.Name)
				}
				mounts[m.MountPath] = m.Name
			}
			for _, p := range []string{dataDir, "/tmp"} {
				if mounts[p] == "" {
					t.Errorf("%s: nothing is mounted at %s, which the bot writes to under a read-only root", where, p)
				}
			}
			if strings.HasPrefix(name, "Deployment/") {
				checkServe(t, where, c, pod)
			}
		}
	}
}

// checkServe checks the `serve` container: its port, probes and grace.
func checkServe(t *testing.T, where string, c container, pod podTemplate) {
	t.Helper()
	if !slices.Equal(c.Args, []string{"serve"}) {
		t.Errorf("%s: args %v, want [serve]", where, c.Args)
	}
	addr, _ := c.env("HTTP_ADDR")
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || ":"+fmt.Sprint(c.Ports[0].ContainerPort) != addr {
		t.Errorf("%s: ports %+v do not match HTTP_ADDR=%q", where, c.Ports, addr)
	}
	for _, p := range []struct {
		kind, path string
		probe      *probe
	}{{"startup", "/healthz", c.StartupProbe}, {"liveness", "/healthz", c.LivenessProbe}, {"readiness", "/readyz", c.ReadinessProbe}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s: no %s probe GET %s", where, p.kind, p.path)
		} else if g := p.probe.HTTPGet; g.Path != p.path || g.Port != "http" {
			t.Errorf("%s: %s probe GET %s on port %v, want GET %s on port http", where, p.kind, g.Path, g.Port, p.path)
		}
	}
	// The bot drains for SHUTDOWN_TIMEOUT, then up to 40 s more (serve.go,
	// drain): Kubernetes must not kill it before.
	timeout, _ := c.env("SHUTDOWN_TIMEOUT")
	var secs int
	if _, err := fmt.Sscanf(timeout, "%ds", &secs); err != nil {
		t.Errorf("%s: SHUTDOWN_TIMEOUT=%q, want whole seconds", where, timeout)
	}
	if g := pod.Spec.TerminationGracePeriod; g == nil || *g < secs+40 {
		t.Errorf("%s: terminationGracePeriodSeconds is not at least SHUTDOWN_TIMEOUT %ds plus the 40 s the drain may add", where, secs)
	}
}

func TestHelmChart(t *testing.T) {
	c := newChart(t)
	everything := []string{"-f", filepath.Join(c.dir, "ci", "everything-values.yaml")}

	t.Run("defaults", func(t *testing.T) {
		r := c.mustRender(t)
		checkWorkloads(t, r)
		if got, want := r.kinds(), []string{"Deployment", "Job", "PodDisruptionBudget", "Service"}; !slices.Equal(got, want) {
			t.Errorf("kinds %v, want %v", got, want)
		}
		d := r.get("Deployment")
		if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 || d.Spec.Strategy.Type != "RollingUpdate" {
			t.Errorf("want more than one replica, rolled, by default: replicas %v, strategy %q", d.Spec.Replicas, d.Spec.Strategy.Type)
		}
		bot := d.Spec.Template.Spec.Containers[0]
		// The image's ENTRYPOINT runs, whatever the binary is called.
		if bot.Command != nil {
			t.Errorf("command %v by default, want none (the image's entrypoint)", bot.Command)
		}
		if v, _ := bot.env("SWITCHBOARD_DEMO"); v != "false" {
			t.Errorf("SWITCHBOARD_DEMO=%q: a deployment must never answer from the demo", v)
		}
		// Every secret setting of the bot can be given, from the release's Secret.
		var refs []string
		for _, e := range bot.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				if e.ValueFrom.SecretKeyRef.Name != "t-switchboard" || e.ValueFrom.SecretKeyRef.Key != e.Name {
					t.Errorf("%s from %+v, want key %[1]s of Secret t-switchboard", e.Name, *e.ValueFrom.SecretKeyRef)
				}
				refs = append(refs, e.Name)
			}
		}
		slices.Sort(refs)
		if want := secretSettings(); !slices.Equal(refs, want) {
			t.Errorf("secret settings referenced %v, want every one Config marks secret: %v", refs, want)
		}
		job := r.get("Job")
		if job.Metadata.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" || !slices.Equal(job.Spec.Template.Spec.Containers[0].Args, []string{"migrate"}) {
			t.Errorf("want migrate as a pre-install and pre-upgrade hook, got %v %v", job.Metadata.Annotations, job.Spec.Template.Spec.Containers[0].Args)
		}
		// The Service and the budget select the serve pods, not the Jobs'.
		pods := d.selects()
		if pods["app.kubernetes.io/component"] != "serve" || !subset(pods, d.Spec.Template.Metadata.Labels) {
			t.Errorf("the Deployment selects %v of its pods' labels %v", pods, d.Spec.Template.Metadata.Labels)
		}
		for _, kind := range []string{"Service", "PodDisruptionBudget"} {
			if got := r.get(kind).selects(); !maps.Equal(got, pods) {
				t.Errorf("the %s selects %v, the Deployment %v", kind, got, pods)
			}
		}
		for _, want := range []string{"More than one replica needs it", "create secret generic t-switchboard", "config.NEO4J_URI is not set", "No documents volume"} {
			if !strings.Contains(r.notes, want) {
				t.Errorf("NOTES.txt does not say %q:\n%s", want, r.notes)
			}
		}
	})

	t.Run("everything", func(t *testing.T) {
		r := c.mustRender(t, everything...)
		checkWorkloads(t, r)
		want := []string{"CronJob", "Deployment", "Ingress", "Job", "PodDisruptionBudget", "Service", "ServiceMonitor"}
		if got := r.kinds(); !slices.Equal(got, want) {
			t.Errorf("kinds %v, want %v", got, want)
		}
		bot := r.get("Deployment").Spec.Template.Spec.Containers[0]
		if !slices.Equal(bot.Command, []string{"/usr/local/bin/switchboard"}) || bot.Image != "registry.example.com/switchboard:v1.2.0" {
			t.Errorf("image.command and the image: %v %s", bot.Command, bot.Image)
		}
		for _, e := range bot.Env {
			if e.Name == "DATABASE_URL" && (e.ValueFrom.SecretKeyRef.Name != "pg-app" || e.ValueFrom.SecretKeyRef.Key != "uri") {
				t.Errorf("DATABASE_URL from %+v, want key uri of Secret pg-app", *e.ValueFrom.SecretKeyRef)
			}
			if e.Name == "TAVILY_API_KEY" {
				t.Errorf("TAVILY_API_KEY set to null is still referenced")
			}
		}
		// Only the webhooks are routed: never /metrics or the probes.
		ing := r.get("Ingress")
		var paths []string
		for _, rule := range ing.Spec.Rules {
			for _, p := range rule.HTTP.Paths {
				if p.PathType != "Exact" || p.Backend.Service.Name != "t-switchboard" || p.Backend.Service.Port.Name != "http" || rule.Host != "switchboard.example.com" {
					t.Errorf("ingress path %+v of host %q", p, rule.Host)
				}
				paths = append(paths, p.Path)
			}
		}
		if want := []string{"/slack/events", "/slack/interactions", "/discord/interactions"}; !slices.Equal(paths, want) || len(ing.Spec.TLS) != 1 {
			t.Errorf("ingress paths %v (TLS %v), want %v with TLS", paths, ing.Spec.TLS, want)
		}
		sm := r.get("ServiceMonitor")
		if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Path != "/metrics" || sm.Spec.Endpoints[0].Port != "http" {
			t.Errorf("ServiceMonitor endpoints %+v", sm.Spec.Endpoints)
		}
		// The ingest CronJob reads the documents read-only.
		cron := r.get("CronJob").Spec.JobTemplate.Spec.Template
		ingest := cron.Spec.Containers[0]
		if !slices.Equal(ingest.Args, []string{"ingest", "/docs"}) {
			t.Errorf("ingest args %v", ingest.Args)
		}
		var mounted bool
		for _, m := range ingest.VolumeMounts {
			mounted = mounted || (m.MountPath == "/docs" && m.ReadOnly)
		}
		var claim bool
		for _, v := range cron.Spec.Volumes {
			claim = claim || (v.PVC != nil && v.PVC.ClaimName == "handbook" && v.PVC.ReadOnly)
		}
		if !mounted || !claim {
			t.Errorf("documents: mounted read-only at /docs %v, claim handbook read-only %v", mounted, claim)
		}
		for _, want := range []string{"https://switchboard.example.com/slack/events", "https://switchboard.example.com/discord/interactions", "create job --from=cronjob/t-switchboard-ingest", "ServiceMonitor t-switchboard"} {
			if !strings.Contains(r.notes, want) {
				t.Errorf("NOTES.txt does not say %q:\n%s", want, r.notes)
			}
		}
	})

	t.Run("one replica without a database", func(t *testing.T) {
		r := c.mustRender(t, "--set", "replicaCount=1", "--set", "secrets.env.DATABASE_URL=null")
		checkWorkloads(t, r)
		// Nothing to migrate, no budget that would block drains, and the
		// old pod stops before the new one opens the embedded file.
		if got, want := r.kinds(), []string{"Deployment", "Service"}; !slices.Equal(got, want) {
			t.Errorf("kinds %v, want %v", got, want)
		}
		if s := r.get("Deployment").Spec.Strategy.Type; s != "Recreate" {
			t.Errorf("strategy %q, want Recreate", s)
		}
		if !strings.Contains(r.notes, "More than one replica needs PostgreSQL") || !strings.Contains(r.notes, "lost with the pod") {
			t.Errorf("NOTES.txt does not say that more replicas need PostgreSQL, and that an emptyDir store is lost with the pod:\n%s", r.notes)
		}
	})

	t.Run("ServiceMonitor only where the API is", func(t *testing.T) {
		r := c.mustRender(t, "--set", "serviceMonitor.enabled=true")
		if r.get("ServiceMonitor") != nil || !strings.Contains(r.notes, "none was created") {
			t.Errorf("without the monitoring.coreos.com API: kinds %v, notes:\n%s", r.kinds(), r.notes)
		}
		r = c.mustRender(t, "--set", "serviceMonitor.enabled=true", "--api-versions", "monitoring.coreos.com/v1/ServiceMonitor")
		if r.get("ServiceMonitor") == nil {
			t.Errorf("with the monitoring.coreos.com API: kinds %v", r.kinds())
		}
	})

	// Values that would deploy something broken are refused, saying what to change.
	for _, tc := range []struct {
		name string
		set  []string
		want string
	}{
		{"replicas without a database", []string{"secrets.env.DATABASE_URL=null"}, "replicaCount is 2, but more than one replica needs PostgreSQL"},
		{"more replicas without a database", []string{"secrets.env.DATABASE_URL=null", "replicaCount=3"}, "replicaCount is 3, but more than one replica needs PostgreSQL"},
		{"an empty database key", []string{"secrets.env.DATABASE_URL.key="}, "/secrets/env/DATABASE_URL/key"},
		{"a secret in config", []string{"config.SLACK_BOT_TOKEN=xoxb-1"}, "config.SLACK_BOT_TOKEN is a secret"},
		{"a setting the chart sets", []string{"config.HTTP_ADDR=:9090"}, "config.HTTP_ADDR is set by the chart: use the value containerPort"},
		{"replicas on Discord's gateway", []string{"config.DISCORD_MODE=gateway"}, "Discord's gateway is one connection per bot token"},
		{"documents without a database", []string{"replicaCount=1", "secrets.env.DATABASE_URL=null", "documents.existingClaim=docs"}, "the ingest CronJob needs PostgreSQL"},
		{"two documents volumes", []string{"documents.existingClaim=docs", "documents.volume.nfs.server=files", "documents.volume.nfs.path=/d"}, "set existingClaim or volume, not both"},
		{"a plain setting in secrets", []string{"secrets.env.LOG_LEVEL.key=level"}, "LOG_LEVEL is not one of the bot's secret settings"},
		{"a secret reference without a key", []string{"secrets.env.SLACK_BOT_TOKEN.key=", "secrets.env.SLACK_BOT_TOKEN.name=slack"}, "/secrets/env/SLACK_BOT_TOKEN/key"},
		{"a setting twice", []string{"extraEnv[0].name=LOG_FORMAT", "extraEnv[0].value=text"}, "extraEnv sets LOG_FORMAT, which config, secrets.env or the chart already sets"},
		{"a secret's value in extraEnv", []string{"secrets.env.TAVILY_API_KEY=null", "extraEnv[0].name=TAVILY_API_KEY", "extraEnv[0].value=tvly-1"}, "extraEnv gives the secret setting TAVILY_API_KEY a value"},
		{"a secret's value instead of a reference", []string{"secrets.env.OPENAI_API_KEY=sk-1"}, "/secrets/env/OPENAI_API_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var args []string
			for _, s := range tc.set {
				args = append(args, "--set", s)
			}
			r, err := c.render(t, args...)
			if err == nil {
				t.Fatalf("helm template --set %v rendered %v, want an error", tc.set, r.kinds())
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("helm template --set %v: %v\nwant it to say %q", tc.set, err, tc.want)
			}
		})
	}
}

// TestHelmChartKnowsTheSettings keeps the chart in step with Config: its
// list of secret settings is Config's, and every setting its values files
// name exists. It needs no helm.
func TestHelmChartKnowsTheSettings(t *testing.T) {
	helpers, err := os.ReadFile(filepath.Join(chartDir, "templates", "_helpers.tpl"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := strings.Cut(string(helpers), `{{- define "switchboard.secretSettings" -}}`)
	list, _, _ := strings.Cut(after, "{{- end }}")
	chartSecrets := strings.Fields(list)
	slices.Sort(chartSecrets)
	if want := secretSettings(); !slices.Equal(chartSecrets, want) {
		t.Errorf("the chart's switchboard.secretSettings are %v, Config's secret settings %v", chartSecrets, want)
	}

	known := map[string]bool{}
	for _, s := range settingsDocs() {
		known[s.name] = true
	}
	for _, file := range []string{"values.yaml", "ci/everything-values.yaml"} {
		b, err := os.ReadFile(filepath.Join(chartDir, file))
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Config  map[string]any `yaml:"config"`
			Secrets struct {
				Env map[string]any `yaml:"env"`
			} `yaml:"secrets"`
		}
		if err := yaml.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for name := range v.Config {
			if !known[name] {
				t.Errorf("%s: config.%s is not a setting of the bot (bot config --docs)", file, name)
			}
		}
		for name := range v.Secrets.Env {
			if !known[name] {
				t.Errorf("%s: secrets.env.%s is not a setting of the bot", file, name)
			}
		}
	}
}

// selects returns the labels an object selects pods by: a Service's
// selector, or the matchLabels of the others'.
func (m *manifest) selects() map[string]string {
	sel := m.Spec.Selector
	if ml, ok := sel["matchLabels"].(map[string]any); ok {
		sel = ml
	}
	out := map[string]string{}
	for k, v := range sel {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// isTrue reports whether b is set and true.
func isTrue(b *bool) bool { return b != nil && *b }

// subset reports whether every label of a is in b.
func subset(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
