package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeVar is a variable docker-compose.yml interpolates, with its
// default: ${DOCUMENTS_DIR:-./documents}.
var composeVar = regexp.MustCompile(`\$\{([A-Z][A-Z0-9_]*):-([^}]*)\}`)

// .env.example lists every setting once, each commented out at its
// default or left empty to be filled in (no value of anyone's in it), and
// beside them only the variables docker-compose.yml interpolates.
func TestEnvExampleListsEverySetting(t *testing.T) {
	example, err := os.ReadFile("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	compose, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	defaults := map[string]string{}
	for _, s := range settingsDocs() {
		defaults[s.name] = s.def
	}
	for _, m := range composeVar.FindAllStringSubmatch(string(compose), -1) {
		defaults[m[1]] = m[2]
	}
	line := regexp.MustCompile(`^(# )?([A-Z][A-Z0-9_]*)=(.*)$`)
	seen := map[string]bool{}
	for i, l := range strings.Split(string(example), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		commented, name, value := m[1] != "", m[2], m[3]
		def, known := defaults[name]
		switch {
		case !known:
			t.Errorf(".env.example:%d: %s is not a setting (switchboard config --docs) nor a variable of docker-compose.yml", i+1, name)
		case seen[name]:
			t.Errorf(".env.example:%d: %s is listed twice", i+1, name)
		case commented && value != def:
			t.Errorf(".env.example:%d: %s=%s, but its default is %q", i+1, name, value, def)
		case !commented && value != "":
			t.Errorf(".env.example:%d: %s has a value; leave it empty to be filled in, or comment it out at its default", i+1, name)
		}
		seen[name] = true
	}
	for name := range defaults {
		if !seen[name] {
			t.Errorf(".env.example does not list %s", name)
		}
	}
}

// There is no Docker engine here: the test reads docker-compose.yml as
// compose would (YAML, with the x-bot anchor merged into each service) and
// checks what the deploy promises. Every Switchboard service mounts the
// documents folder read-only at /docs; ingest loads it after the
// migrations and the bot (service switchboard) serves beside it, and
// `docker compose run --rm switchboard ingest /docs` reads the same folder; the databases publish no
// port; the settings compose gives are settings the binary reads, and the
// commands are its subcommands.
func TestComposeFile(t *testing.T) {
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Image       string
			Command     []string
			Environment map[string]string
			Volumes     []string
			Ports       []string
			DependsOn   map[string]struct{ Condition string } `yaml:"depends_on"`
		}
	}
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	for name, s := range compose.Services {
		for dep := range s.DependsOn {
			if _, ok := compose.Services[dep]; !ok {
				t.Errorf("%s depends on %s, which is not a service", name, dep)
			}
		}
		if s.Image != "switchboard:local" {
			if len(s.Ports) > 0 {
				t.Errorf("%s publishes %v: the databases are reached only from inside the project", name, s.Ports)
			}
			continue
		}
		if !slices.Contains(s.Volumes, "${DOCUMENTS_DIR:-./documents}:/docs:ro") {
			t.Errorf("%s does not mount the documents folder read-only at /docs: %v", name, s.Volumes)
		}
		if len(s.Command) == 0 || !slices.Contains(commands, s.Command[0]) {
			t.Errorf("%s runs %v, not a subcommand", name, s.Command)
		}
		for k := range s.Environment {
			if _, ok := settingByName(k); !ok {
				t.Errorf("%s sets %s, which is not a setting", name, k)
			}
		}
	}
	want := map[string][]string{"migrate": {"migrate"}, "ingest": {"ingest", "/docs"}, "switchboard": {"serve"}}
	for name, cmd := range want {
		if got := compose.Services[name].Command; !slices.Equal(got, cmd) {
			t.Errorf("service %s runs %v, want %v", name, got, cmd)
		}
	}
	if c := compose.Services["ingest"].DependsOn["migrate"].Condition; c != "service_completed_successfully" {
		t.Errorf("ingest waits for the migrations with %q", c)
	}
	if _, ok := compose.Services["switchboard"].DependsOn["ingest"]; ok {
		t.Error("the bot waits for the ingest: one unreadable file would keep it from starting")
	}
}

// settingByName returns the setting named name.
func settingByName(name string) (setting, bool) {
	for _, s := range settingsDocs() {
		if s.name == name {
			return s, true
		}
	}
	return setting{}, false
}
