package licensing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"os/user"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// machineFingerprint is SHA-256 (hex) of a version tag, the app id, the
// system's id of this installation (the host name where it keeps none) and the
// user's name, joined by NUL bytes: the very value the TypeScript library's
// machineId() gives on the same machine for the same user and application.
// Hashing with the app id means the value reveals neither id, and two
// applications see different values for one machine.
func machineFingerprint(appID string) string {
	machine := machineSource(runtime.GOOS)
	if machine == "" {
		host, _ := os.Hostname()
		machine = "host:" + host
	}
	sum := sha256.Sum256([]byte(strings.Join([]string{"licensing-machine-id-v1", appID, machine, userName()}, "\x00")))
	return hex.EncodeToString(sum[:])
}

// machineSource is the operating system's own id of this installation, where it keeps one.
func machineSource(goos string) string {
	switch goos {
	case "linux":
		return firstOf(firstLine("/etc/machine-id"), func() string { return firstLine("/var/lib/dbus/machine-id") })
	case "darwin":
		return commandOutput(`"IOPlatformUUID"\s*=\s*"([^"]+)"`, "ioreg", "-rd1", "-c", "IOPlatformExpertDevice")
	case "windows":
		// The registry is read through reg.exe: the standard library has no registry package.
		return commandOutput(`MachineGuid\s+REG_SZ\s+(\S+)`, "reg", "query", `HKLM\SOFTWARE\Microsoft\Cryptography`, "/v", "MachineGuid", "/reg:64")
	case "freebsd", "openbsd", "netbsd":
		return firstOf(firstLine("/etc/hostid"), func() string { return commandOutput(`^(\S+)`, "kenv", "-q", "smbios.system.uuid") })
	}
	return ""
}

func firstOf(found string, otherwise func() string) string {
	if found != "" {
		return found
	}
	return otherwise()
}

func firstLine(path string) string {
	text, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(text)), "\n")
	return strings.TrimSpace(line)
}

func commandOutput(pattern string, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	output, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	found := regexp.MustCompile(pattern).FindSubmatch(output)
	if found == nil {
		return ""
	}
	return strings.TrimSpace(string(found[1]))
}

// userName is the login name as Node's os.userInfo() gives it: on Windows
// without the domain Go puts before it.
func userName() string {
	current, err := user.Current()
	if err != nil {
		return ""
	}
	name := current.Username
	if at := strings.LastIndex(name, `\`); at >= 0 {
		name = name[at+1:]
	}
	return name
}
