// The C# library against the service that test/clients/csharp.test.ts starts (the local
// server, the steered proxy, an owner), read from the environment as the C and Python
// suites read it. Run on Mono; prints "N passed, N failed".
using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using Licensing;

internal static class LicenseClientTests
{
    private static readonly string ServiceUrl = Environment.GetEnvironmentVariable("LICENSING_URL");
    private static readonly string ProxyUrl = Environment.GetEnvironmentVariable("LICENSING_PROXY_URL");
    private static readonly string AppId = Environment.GetEnvironmentVariable("LICENSING_APP_ID");
    private static readonly string ApiKey = Environment.GetEnvironmentVariable("LICENSING_API_KEY");
    private static readonly string Jwk = Environment.GetEnvironmentVariable("LICENSING_PUBLIC_JWK");
    private static readonly string Pem = Environment.GetEnvironmentVariable("LICENSING_PUBLIC_KEY_PEM");
    private static string subscriptionId;
    private static string workDir;
    private static int folders;

    private sealed class Failure : Exception
    {
        internal Failure(string what) : base(what) { }
    }

    private static void Expect(bool condition, string what)
    {
        if (!condition) throw new Failure(what);
    }

    private static LicenseException Fails(Action call)
    {
        try
        {
            call();
        }
        catch (LicenseException failure)
        {
            return failure;
        }
        throw new Failure("expected a LicenseException");
    }

    // ---- the service ----

    private static string Post(string url, string body, string apiKey, out int status)
    {
        var request = (HttpWebRequest)WebRequest.Create(url);
        request.Method = "POST";
        request.ContentType = "application/json";
        request.Proxy = null;
        request.Timeout = 30000;
        if (apiKey != null) request.Headers["x-api-key"] = apiKey;
        byte[] bytes = Encoding.UTF8.GetBytes(body);
        using (Stream stream = request.GetRequestStream()) stream.Write(bytes, 0, bytes.Length);
        HttpWebResponse response;
        try
        {
            response = (HttpWebResponse)request.GetResponse();
        }
        catch (WebException error)
        {
            response = (HttpWebResponse)error.Response;
            if (response == null) throw;
        }
        using (response)
        using (var reader = new StreamReader(response.GetResponseStream(), Encoding.UTF8))
        {
            status = (int)response.StatusCode;
            return reader.ReadToEnd();
        }
    }

    private static string Manage(string path, string body)
    {
        int status;
        string answer = Post(ServiceUrl + path, body, ApiKey, out status);
        if (status != 200) throw new Failure(path + " answered " + status + ": " + answer);
        return answer;
    }

    private static string Member(string json, string name)
    {
        Match found = Regex.Match(json, "\"" + name + "\":\"([^\"]*)\"");
        return found.Success ? found.Groups[1].Value : null;
    }

    private static string NewLicense(string extra = "")
    {
        if (subscriptionId == null)
        {
            subscriptionId = Member(Manage("/subscription/create", "{\"app_id\":\"" + AppId + "\",\"name\":\"C# client tests\",\"level\":2,\"usage_limits\":{\"exports\":{\"limit\":5,\"period\":\"none\"}}}"), "subscription_id");
        }
        string body = "{\"app_id\":\"" + AppId + "\",\"subscription_id\":\"" + subscriptionId + "\",\"duration_unit\":\"days\",\"duration_value\":30" + (extra.Length > 0 ? "," + extra : "") + "}";
        return Member(Manage("/license/create", body), "key");
    }

    private static string FloatingLicense()
    {
        return NewLicense("\"hwid_lock\":true,\"max_devices\":1,\"lease_seconds\":60");
    }

    private static void Control(string path, string body)
    {
        int status;
        Post(ProxyUrl + "/__control/" + path, body, null, out status);
        if (status != 200) throw new Failure("the proxy's " + path + " failed");
    }

    private static void ProxyMode(string mode, string license = null)
    {
        Control("mode", "{\"mode\":\"" + mode + "\"" + (license != null ? ",\"license\":\"" + license + "\"" : "") + "}");
    }

    private static void SetServer(bool running)
    {
        Control("server", running ? "{\"running\":true}" : "{\"running\":false}");
    }

    private static string StateFolder()
    {
        return Path.Combine(workDir, "state-" + (++folders));
    }

    private static LicenseClient Client(string url = null, string stateDir = null, int timeoutMs = 0, Func<DateTimeOffset> clock = null, string key = null)
    {
        return new LicenseClient(url ?? ServiceUrl, AppId, key ?? Pem, stateDir, timeoutMs, clock);
    }

    private static bool WaitFor(Func<bool> condition, int seconds)
    {
        DateTime end = DateTime.UtcNow.AddSeconds(seconds);
        while (DateTime.UtcNow < end)
        {
            if (condition()) return true;
            Thread.Sleep(50);
        }
        return condition();
    }

    // ---- the tests ----

    private static void ChecksALicenseWithThePinnedPemThenTheJwk()
    {
        string key = NewLicense("\"features\":[\"export.pdf\"]");
        using (LicenseClient byPem = Client(), byJwk = new LicenseClient(ServiceUrl, AppId, Jwk, null))
        using (LicenseResult first = byPem.Check(license: key))
        using (LicenseResult second = byJwk.Check(license: key))
        {
            Expect(first.Message == "LICENSE_VERIFIED_UNUSED_AND_UNLOCKED_KEY", "message is " + first.Message);
            Expect(second.Message == "LICENSE_VERIFIED_USED_AND_UNLOCKED_KEY", "message is " + second.Message);
            Expect(!second.Offline, "online");
            Expect(second.GetString("key") == key, "data names the key");
            Expect(second.GetString("subscription_name") == "C# client tests", "subscription name");
            Expect(second.GetInteger("subscription_level") == 2, "subscription level");
            Expect(second.GetString("no_such_member") == null && second.GetInteger("key") == null, "absent members are null");
            Expect(second.HasFeature("export.pdf") && !second.HasFeature("export.svg"), "features");
            Expect(second.DataJson.Contains("\"key\":\"" + key + "\""), "data JSON");
        }
    }

    private static void RefusalsAndBadArgumentsAreTypedFailures()
    {
        using (LicenseClient client = Client())
        {
            LicenseException missing = Fails(() => client.Check(license: "NO-SUCH-LICENSE"));
            Expect(missing.Code == "LICENSE_NOT_FOUND" && missing.DataJson == null, "code is " + missing.Code);
            string key = NewLicense("\"hwid_lock\":true");
            client.Check(license: key, hwid: "first-pc").Dispose();
            LicenseException mismatch = Fails(() => client.Check(license: key, hwid: "second-pc"));
            Expect(mismatch.Code == "HWID_MISMATCH", "code is " + mismatch.Code);
            Expect(mismatch.DataJson.Contains("\"hwid_reset_allowed\":true"), "data is " + mismatch.DataJson);
        }
        bool refused = false;
        try
        {
            new LicenseClient(ServiceUrl, "not-a-uuid", Pem, null).Dispose();
        }
        catch (ArgumentException)
        {
            refused = true;
        }
        Expect(refused, "a malformed app id is an ArgumentException");
        using (LicenseClient dark = new LicenseClient("http://127.0.0.1:9", AppId, Jwk, null, 800, null))
        {
            Expect(Fails(() => dark.Check(license: "ANY")).Code == "NETWORK_ERROR", "nothing listening is NETWORK_ERROR");
        }
    }

    private static readonly string[] Alterations = { "status", "status-5xx", "body", "body-redigest", "signature", "strip", "nonce-request", "nonce-answer" };

    private static void EveryTamperedReplayedOrRelayedAnswerIsInvalidSignatureEvenWithAStoredToken()
    {
        string key = NewLicense();
        string folder = StateFolder();
        using (LicenseClient direct = Client(stateDir: folder), proxied = Client(ProxyUrl, folder, 3000))
        {
            direct.Check(license: key).Dispose();
            string stored = File.ReadAllText(Path.Combine(folder, "offline-token.json"));
            foreach (string mode in Alterations)
            {
                ProxyMode(mode);
                LicenseException failure = Fails(() => proxied.Check(license: key));
                Expect(failure.Code == "INVALID_SIGNATURE", mode + ": code is " + failure.Code);
                Expect(File.ReadAllText(Path.Combine(folder, "offline-token.json")) == stored, mode + ": the stored token is untouched");
            }
            ProxyMode("pass");
            proxied.Check(license: key).Dispose();
            Control("mode", "{\"mode\":\"replay\",\"times\":1}");
            Expect(Fails(() => proxied.Check(license: key)).Code == "INVALID_SIGNATURE", "a replayed answer");
            ProxyMode("relay", key);
            Expect(Fails(() => proxied.Check(license: "CRACKED-KEY")).Code == "INVALID_SIGNATURE", "a relayed answer");
        }
    }

    private static void ADarkServiceIsAnsweredFromTheKeptTokenUntilItExpires()
    {
        string key = NewLicense("\"hwid_lock\":true");
        DateTimeOffset now = DateTimeOffset.UtcNow;
        string folder = StateFolder();
        // A generous deadline online (a busy machine); a short one for the 502s and the dark service, waited out before each fallback.
        using (LicenseClient online = Client(ProxyUrl, folder, 15000, () => now), client = Client(ProxyUrl, folder, 1500, () => now))
        {
            online.Check(license: key, hwid: "laptop").Dispose();
            ProxyMode("gateway-502");
            using (LicenseResult gateway = client.Check(license: key, hwid: "laptop"))
            {
                Expect(gateway.Offline && gateway.Message == "OFFLINE_TOKEN_VALID", "an unsigned 502 falls back to the kept token");
            }
            ProxyMode("pass");
            SetServer(false);
            using (LicenseResult dark = client.Check(license: key, hwid: "laptop"))
            {
                Expect(dark.Offline && dark.GetString("key") == key && dark.GetString("offline_until") != null, "the dark service falls back");
            }
            Expect(Fails(() => client.Check(license: key, hwid: "another-pc")).Code == "NETWORK_ERROR", "another device gets no offline answer");
            now = now.AddDays(7).AddMinutes(1);
            LicenseException expired = Fails(() => client.Check(license: key, hwid: "laptop"));
            Expect(expired.Code == "OFFLINE_TOKEN_EXPIRED" && expired.DataJson.Contains("expired_at"), "code is " + expired.Code);
            SetServer(true);
            string body = "{\"license_key\":\"" + key + "\",\"status\":\"paused\"}";
            Manage("/license/update-status", body);
            Expect(Fails(() => online.Check(license: key, hwid: "laptop")).Code == "LICENSE_NOT_ACTIVE", "a paused license");
            Expect(!File.Exists(Path.Combine(folder, "offline-token.json")), "a refusal deletes the kept token");
        }
        using (LicenseClient none = Client(stateDir: StateFolder(), timeoutMs: 800))
        {
            SetServer(false);
            Expect(Fails(() => none.Check(license: key)).Code == "NETWORK_ERROR", "no kept token is NETWORK_ERROR");
            SetServer(true);
        }
    }

    private static void RegistersResetsCountsUsageReleasesAndBorrows()
    {
        string key = NewLicense("\"hwid_lock\":true");
        string username = "csharp-" + Guid.NewGuid().ToString("N").Substring(0, 10);
        using (LicenseClient client = Client(ProxyUrl, StateFolder(), 15000))
        {
            using (LicenseResult registered = client.Register(key, username, "password-123"))
            {
                Expect(registered.Message == "License credentials updated successfully" && registered.DataJson == "null", "registered");
            }
            using (LicenseResult byName = client.Check(username: username.ToUpperInvariant(), password: "password-123", hwid: "pc-1"))
            {
                Expect(byName.GetString("key") == key, "checked by username");
            }
            Control("mode", "{\"mode\":\"lose-answer\",\"times\":1}");
            using (LicenseResult counted = client.RecordUsage("exports", 2, license: key, hwid: "pc-1"))
            {
                Expect(counted.Message == "USAGE_RECORDED" && counted.GetInteger("used") == 2, "a lost answer is counted once: " + counted.DataJson);
            }
            client.RecordUsage("exports", 1, "csharp-usage-id-1", license: key, hwid: "pc-1").Dispose();
            using (LicenseResult again = client.RecordUsage("exports", 1, "csharp-usage-id-1", license: key, hwid: "pc-1"))
            {
                Expect(again.GetInteger("used") == 3, "the same usage id counts once");
            }
            LicenseException past = Fails(() => client.RecordUsage("exports", 3, license: key, hwid: "pc-1"));
            Expect(past.Code == "USAGE_LIMIT_REACHED" && past.DataJson.Contains("\"used\":3"), "code is " + past.Code);
            using (LicenseResult reset = client.ResetHwid(license: key, hwid: "pc-1"))
            {
                Expect(reset.Message == "HWID_RESET", "reset");
            }
            client.Check(license: key, hwid: "pc-2").Dispose();
        }
        string floating = FloatingLicense();
        DateTimeOffset now = DateTimeOffset.UtcNow;
        string laptopFolder = StateFolder();
        // A generous deadline online (a busy machine); a short one once the service is dark, where every try fails at once.
        using (LicenseClient online = Client(stateDir: laptopFolder, timeoutMs: 15000, clock: () => now),
               laptop = Client(stateDir: laptopFolder, timeoutMs: 1000, clock: () => now))
        {
            using (LicenseResult borrowed = online.Borrow("laptop", 120, license: floating))
            {
                Expect(borrowed.GetString("offline_token") != null, "a borrow carries its token");
            }
            Expect(Fails(() => online.Release("laptop", license: floating)).Code == "LEASE_BORROWED", "a borrowed seat is kept");
            SetServer(false);
            using (LicenseResult offline = laptop.Check(license: floating, hwid: "laptop"))
            {
                Expect(offline.Offline && offline.DataJson.Contains("\"borrowed\":true"), "the borrow works offline");
            }
            SetServer(true);
        }
        string another = FloatingLicense();
        using (LicenseClient client = Client())
        {
            client.Check(license: another, hwid: "desk").Dispose();
            Expect(client.Release("desk", license: another).Message == "SEAT_RELEASED", "released");
            Expect(Fails(() => client.Release("desk", license: another)).Code == "HWID_NOT_BOUND", "released twice");
        }
    }

    private static void AHeartbeatReportsALostSeatFromItsThreadAndGivesItsSeatBack()
    {
        string key = FloatingLicense();
        var lost = new List<LicenseException>();
        using (LicenseClient proxied = Client(ProxyUrl, null, 3000), direct = Client())
        {
            Heartbeat seat = proxied.StartHeartbeat("desk-a", failure => { lock (lost) lost.Add(failure); }, license: key, intervalMs: 200);
            Expect(seat.LeaseExpiresAt > DateTimeOffset.UtcNow, "a lease");
            LicenseException exhausted = Fails(() => direct.Check(license: key, hwid: "desk-b"));
            Expect(exhausted.Code == "SEATS_EXHAUSTED" && exhausted.DataJson.Contains("\"max_devices\":1"), "code is " + exhausted.Code);
            ProxyMode("gateway-502");
            Manage("/hwid/remove", "{\"license_key\":\"" + key + "\",\"hwid\":\"desk-a\"}");
            direct.Check(license: key, hwid: "desk-b").Dispose();
            Thread.Sleep(800);
            lock (lost) Expect(lost.Count == 0, "an unreachable service is no lost seat while the lease runs");
            ProxyMode("pass");
            Expect(WaitFor(() => { lock (lost) return lost.Count > 0; }, 15), "the loss is reported");
            lock (lost) Expect(lost.Count == 1 && lost[0].Code == "SEATS_EXHAUSTED", "code is " + lost[0].Code);
            Expect(seat.LostCode == "SEATS_EXHAUSTED", "lost code");
            seat.Stop();
            direct.Release("desk-b", license: key).Dispose();

            using (Heartbeat held = direct.StartHeartbeat("desk-c", license: key))
            {
                held.RenewNow();
                Expect(Fails(() => proxied.Check(license: key, hwid: "desk-d")).Code == "SEATS_EXHAUSTED", "desk-c holds the seat");
            }
            using (LicenseResult taken = proxied.Check(license: key, hwid: "desk-d"))
            {
                Expect(taken.DataJson.Contains("\"hwids\":[\"desk-d\"]"), "disposing gave the seat back");
            }
            Expect(Fails(() => direct.StartHeartbeat("desk-e", license: NewLicense())).Code == "LICENSE_NOT_FLOATING", "not floating");
        }
    }

    private static void TheMachineIdIsTheOtherLibrariesOne()
    {
        using (LicenseClient client = Client())
        {
            string id = client.MachineId();
            Expect(id == Environment.GetEnvironmentVariable("LICENSING_EXPECTED_MACHINE_ID"), "machine id " + id);
        }
    }

    private static void OneClientServesSeveralThreads()
    {
        string key = NewLicense();
        using (LicenseClient shared = Client())
        {
            var codes = new string[4];
            var threads = new Thread[4];
            for (int i = 0; i < 4; i++)
            {
                int index = i;
                threads[i] = new Thread(() =>
                {
                    try
                    {
                        shared.Check(license: index == 3 ? "NO-SUCH-LICENSE" : key).Dispose();
                        codes[index] = "ok";
                    }
                    catch (LicenseException failure)
                    {
                        codes[index] = failure.Code;
                    }
                });
                threads[i].Start();
            }
            foreach (Thread thread in threads) thread.Join();
            Expect(codes[0] == "ok" && codes[1] == "ok" && codes[2] == "ok" && codes[3] == "LICENSE_NOT_FOUND", string.Join(",", codes));
        }
    }

    // The recorded answers, handed over by test/clients/csharp.test.ts as blocks of
    // "name<TAB>base64 of the value" lines (Mono's base profile has no JSON reader,
    // and the library itself needs none), through the C library's verification.
    private static List<Dictionary<string, string>> RecordedCases(string kind)
    {
        var cases = new List<Dictionary<string, string>>();
        Dictionary<string, string> current = null;
        foreach (string line in File.ReadAllLines(Environment.GetEnvironmentVariable("LICENSING_ANSWERS_FLAT")))
        {
            if (line.Length == 0)
            {
                current = null;
                continue;
            }
            string[] parts = line.Split('\t');
            string value = parts.Length > 1 ? Encoding.UTF8.GetString(Convert.FromBase64String(parts[1])) : null;
            if (current == null)
            {
                current = new Dictionary<string, string>();
                if (parts[0] == kind) cases.Add(current);
            }
            current[parts[0]] = value;
        }
        return cases;
    }

    private static string Outcome(LicenseClient client, int status, ResultHandle handle, bool answer)
    {
        if (status == 0)
        {
            using (var result = new LicenseResult(handle)) return answer ? "ok:" + result.Message : "ok:" + result.GetString("sub");
        }
        handle.Dispose();
        return (status == 1 ? "refused:" : "code:") + Native.LastError(client.Handle).Code;
    }

    private static void EveryRecordedAnswerAndTokenIsDecidedAsTheCaseExpects()
    {
        int decided = 0;
        var wrong = new List<string>();
        foreach (Dictionary<string, string> vector in RecordedCases("answer"))
        {
            using (var client = new LicenseClient(ServiceUrl, vector["app_id"], vector["public_key_pem"], null))
            using (var strings = new NativeStrings())
            {
                byte[] body = Encoding.UTF8.GetBytes(vector["body"]);
                IntPtr bodyCopy = Marshal.AllocHGlobal(Math.Max(body.Length, 1));
                Marshal.Copy(body, 0, bodyCopy, body.Length);
                var exchange = new Native.Exchange
                {
                    Nonce = strings.Add(vector["nonce"]),
                    RequestDigest = strings.Add(vector["content_digest"]),
                    License = strings.Add(vector["license"]),
                    Status = int.Parse(vector["status"]),
                    ContentDigest = strings.Add(vector["content-digest"]),
                    SignatureInput = strings.Add(vector["signature-input"]),
                    Signature = strings.Add(vector["signature"]),
                    Body = bodyCopy,
                    BodyLength = body.Length,
                };
                ResultHandle handle;
                int status = Native.lc_verify_answer(client.Handle, ref exchange, out handle);
                string got = Outcome(client, status, handle, true);
                Marshal.FreeHGlobal(bodyCopy);
                Console.WriteLine("    answer " + vector["answer"] + ": " + got);
                if (got != vector["expect"]) wrong.Add(vector["answer"] + " (expected " + vector["expect"] + ")");
                decided++;
            }
        }
        foreach (Dictionary<string, string> vector in RecordedCases("token_name"))
        {
            using (var client = new LicenseClient(ServiceUrl, vector["app_id"], vector["public_key_pem"], null))
            using (var strings = new NativeStrings())
            {
                Native.Credentials expected = strings.Credentials(vector["license"], null, null, vector["hwid"]);
                ResultHandle handle;
                int status = Native.lc_verify_token(client.Handle, strings.Add(vector["token"]), ref expected, strings.Add(vector["nonce"]), long.Parse(vector["now"]), out handle);
                string got = Outcome(client, status, handle, false);
                Console.WriteLine("    token " + vector["token_name"] + ": " + got);
                if (got != vector["expect"]) wrong.Add(vector["token_name"] + " (expected " + vector["expect"] + ")");
                decided++;
            }
        }
        Expect(decided >= 20, decided + " cases");
        Expect(wrong.Count == 0, "decided otherwise: " + string.Join(", ", wrong));
    }

    public static int Main()
    {
        if (ServiceUrl == null || ProxyUrl == null || AppId == null || ApiKey == null || Jwk == null || Pem == null)
        {
            Console.Error.WriteLine("run by test/clients/csharp.test.ts, which sets LICENSING_URL, LICENSING_PROXY_URL, LICENSING_APP_ID, ...");
            return 2;
        }
        workDir = Path.Combine(Path.GetTempPath(), "licensing-csharp-tests-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(workDir);
        var tests = new List<KeyValuePair<string, Action>>
        {
            new KeyValuePair<string, Action>("checks a license with the pinned PEM, then the JWK", ChecksALicenseWithThePinnedPemThenTheJwk),
            new KeyValuePair<string, Action>("refusals and bad arguments are typed failures", RefusalsAndBadArgumentsAreTypedFailures),
            new KeyValuePair<string, Action>("every tampered, replayed or relayed answer is INVALID_SIGNATURE, even with a stored token", EveryTamperedReplayedOrRelayedAnswerIsInvalidSignatureEvenWithAStoredToken),
            new KeyValuePair<string, Action>("a dark service is answered from the kept token until it expires", ADarkServiceIsAnsweredFromTheKeptTokenUntilItExpires),
            new KeyValuePair<string, Action>("registers, resets, counts usage, releases and borrows", RegistersResetsCountsUsageReleasesAndBorrows),
            new KeyValuePair<string, Action>("a heartbeat reports a lost seat from its thread and gives its seat back", AHeartbeatReportsALostSeatFromItsThreadAndGivesItsSeatBack),
            new KeyValuePair<string, Action>("the machine id is the other libraries' one", TheMachineIdIsTheOtherLibrariesOne),
            new KeyValuePair<string, Action>("one client serves several threads", OneClientServesSeveralThreads),
            new KeyValuePair<string, Action>("every recorded answer and token is decided as the case expects", EveryRecordedAnswerAndTokenIsDecidedAsTheCaseExpects),
        };
        int passed = 0, failed = 0;
        foreach (KeyValuePair<string, Action> test in tests)
        {
            try
            {
                ProxyMode("pass");
                test.Value();
                Console.WriteLine("ok - " + test.Key);
                passed++;
            }
            catch (Exception failure)
            {
                Console.WriteLine("    " + failure.GetType().Name + ": " + failure.Message);
                Console.WriteLine("not ok - " + test.Key);
                failed++;
            }
            finally
            {
                ProxyMode("pass");
                SetServer(true);
            }
        }
        Directory.Delete(workDir, true);
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
