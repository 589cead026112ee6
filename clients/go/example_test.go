package licensing_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	licensing "licensing-service/clients/go"
)

var examples = []string{"check", "floating", "usage"}

var built struct {
	once sync.Once
	dir  string
	err  error
	log  []byte
}

// exampleBinaries builds the README's examples once, as a developer's own
// module does after the README's install steps: a module of their own that
// requires this one, replaced by its folder, with no module proxy.
func exampleBinaries(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		library, err := filepath.Abs(".")
		if err != nil {
			built.err = err
			return
		}
		// Not t.TempDir(): the binaries outlive the test that built them, and the process removes them in TestMain's stead.
		root, err := os.MkdirTemp("", "licensing-go-examples-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = filepath.Join(root, "bin")
		module := filepath.Join(root, "program")
		goMod := "module example.com/program\n\ngo 1.19\n\nrequire licensing-service/clients/go v0.0.0\n\nreplace licensing-service/clients/go => " + library + "\n"
		for _, name := range examples {
			source, err := os.ReadFile(filepath.Join("examples", name, "main.go"))
			if err == nil {
				err = os.MkdirAll(filepath.Join(module, name), 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(module, name, "main.go"), source, 0o644)
			}
			if err != nil {
				built.err = err
				return
			}
		}
		if built.err = os.WriteFile(filepath.Join(module, "go.mod"), []byte(goMod), 0o644); built.err != nil {
			return
		}
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", built.dir+string(filepath.Separator), "./...")
		build.Dir = module
		build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
		built.log, built.err = build.CombinedOutput()
	})
	if built.err != nil {
		t.Fatalf("building the examples: %v\n%s", built.err, built.log)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(filepath.Dir(built.dir))
	}
	os.Exit(code)
}

// example is an example program as a user runs it: its own process, with the
// service's URL, app id and PEM in the environment and a home of its own.
func (s *service) example(t *testing.T, home, name string, args ...string) *exec.Cmd {
	command := exec.Command(filepath.Join(exampleBinaries(t), name), args...)
	command.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=", "LICENSING_URL="+s.url, "LICENSING_APP_ID="+s.appID, "LICENSING_PUBLIC_KEY="+s.pem)
	return command
}

func runExample(t *testing.T, command *exec.Cmd) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	command.Stdout, command.Stderr = &out, &errs
	err := command.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errs.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), 0
}

func TestTheReadmeShowsTheVeryExamplesTheTestsRun(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range examples {
		source, err := os.ReadFile(filepath.Join("examples", name, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(readme, append(append([]byte("```go\n"), source...), "```"...)) {
			t.Errorf("README.md does not show examples/%s/main.go as it is", name)
		}
	}
}

func TestTheCheckExampleRunsLicensedAndRefusesAnUnknownKey(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true})
	home := t.TempDir()
	stdout, stderr, code := runExample(t, s.example(t, home, "check", key))
	if code != 0 || !regexp.MustCompile(`^Licensed \(Go client tests\), valid until \d{4}-`).MatchString(stdout) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "example-app", "offline-token.json")); err != nil {
		t.Fatalf("no token kept: %v", err)
	}
	if bound := s.license(t, key)["hwid"]; bound != s.client(t, s.url).MachineID() {
		t.Fatalf("bound to %v", bound)
	}

	_, stderr, code = runExample(t, s.example(t, home, "check", "NOT-A-KEY"))
	if code != 1 || strings.TrimSpace(stderr) != "This copy is not licensed: LICENSE_NOT_FOUND" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestTheFloatingExampleHoldsTheSeatUntilSIGTERMThenReleasesIt(t *testing.T) {
	s := theService(t)
	key := s.floatingLicense(t, 1)
	program := s.example(t, t.TempDir(), "floating", key)
	var errs bytes.Buffer
	program.Stderr = &errs
	stdout, err := program.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := program.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "Seat held until ") {
		t.Fatalf("first line %q, stderr %q", lines.Text(), errs.String())
	}
	held := leases(t, s, key)
	if len(held) != 1 || held[0].(map[string]interface{})["hwid"] != s.client(t, s.url).MachineID() {
		t.Fatalf("leases %v", held)
	}
	refused(t, "SEATS_EXHAUSTED")(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: "another-desk"}))

	if err := program.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !lines.Scan() || lines.Text() != "Seat released" {
		t.Fatalf("then %q, stderr %q", lines.Text(), errs.String())
	}
	if err := program.Wait(); err != nil {
		t.Fatalf("%v: %s", err, errs.String())
	}
	if held := leases(t, s, key); len(held) != 0 {
		t.Fatalf("leases after the program ended: %v", held)
	}

	ok(t)(s.client(t, s.url).Check(ctx, licensing.Credentials{License: key, HWID: "another-desk"}))
	_, stderr, code := runExample(t, s.example(t, t.TempDir(), "floating", key))
	if code != 1 || !regexp.MustCompile(`^All 1 seats are in use; the next one is free at \d{4}-`).MatchString(stderr) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestTheUsageExampleCountsOneExportThenSaysNoneAreLeft(t *testing.T) {
	s := theService(t)
	key := s.newLicense(t, map[string]interface{}{"hwid_lock": true, "usage_limits": map[string]interface{}{"exports": map[string]interface{}{"limit": 1, "period": "month"}}})
	stdout, stderr, code := runExample(t, s.example(t, t.TempDir(), "usage", key))
	if code != 0 || stdout != "Exported; 0 exports left\n" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, stderr, code = runExample(t, s.example(t, t.TempDir(), "usage", key))
	if code != 1 || !regexp.MustCompile(`^No exports left until \d{4}-\d\d-01T00:00:00\.000Z`).MatchString(stderr) {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
