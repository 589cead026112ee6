using System;
using System.Runtime.InteropServices;

namespace Licensing
{
    /// <summary>
    /// The client of the licensing service for one application, over the C library
    /// (liblicensing): every answer is accepted only once it verifies against the
    /// application's pinned public key. One client serves any number of threads.
    /// </summary>
    public sealed class LicenseClient : IDisposable
    {
        private static readonly Native.ClockFn ClockCallback = ClockFromNative;
        private static readonly IntPtr ClockPointer = Marshal.GetFunctionPointerForDelegate(ClockCallback);

        private readonly ClientHandle handle;

        /// <summary>
        /// url: the service's base URL (null: never online, an air-gapped program); appId: the application's id; publicKey: its
        /// public key as PEM or JWK JSON (pinned in the program); stateDir: where the
        /// offline token is kept (null: no offline use).
        /// </summary>
        public LicenseClient(string url, string appId, string publicKey, string stateDir)
            : this(url, appId, publicKey, stateDir, 0, null)
        {
        }

        /// <summary>
        /// timeoutMs: the longest one call may take, retries included (0: 10,000);
        /// clock: the time offline tokens and heartbeats go by (null: the system's).
        /// </summary>
        public LicenseClient(string url, string appId, string publicKey, string stateDir, int timeoutMs, Func<DateTimeOffset> clock)
        {
            GCHandle clockHandle = clock == null ? default(GCHandle) : GCHandle.Alloc(clock);
            using (var strings = new NativeStrings())
            {
                IntPtr options = Options(strings.Add(url), strings.Add(appId), strings.Add(publicKey), strings.Add(stateDir), timeoutMs, clockHandle);
                try
                {
                    handle = Native.lc_client_new(options);
                }
                finally
                {
                    Marshal.FreeHGlobal(options);
                }
            }
            if (handle.IsInvalid)
            {
                if (clockHandle.IsAllocated) clockHandle.Free();
                throw new ArgumentException("url, appId or publicKey is missing or malformed (publicKey: the application's Ed25519 public key as PEM or JWK)");
            }
            handle.Clock = clockHandle;
        }

        /// <summary>Authenticates (and on first use activates) the license; when the service cannot be reached (or no url is set), the kept license file, else the kept offline token, answers while it is valid.</summary>
        public LicenseResult Check(string license = null, string username = null, string password = null, string hwid = null)
        {
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_check(handle, ref credentials, out result), result);
            }
        }

        /// <summary>Holds this device's floating seat for `seconds` to work offline; its offline token is kept.</summary>
        public LicenseResult Borrow(string hwid, long seconds, string license = null, string username = null, string password = null)
        {
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_borrow(handle, ref credentials, seconds, out result), result);
            }
        }

        /// <summary>Gives this device's floating seat back at once (SEAT_RELEASED).</summary>
        public LicenseResult Release(string hwid, string license = null, string username = null, string password = null)
        {
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_release(handle, ref credentials, out result), result);
            }
        }

        /// <summary>Releases the device `hwid`, or every device of the license when null (HWID_RESET).</summary>
        public LicenseResult ResetHwid(string license = null, string username = null, string password = null, string hwid = null)
        {
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_reset_hwid(handle, ref credentials, out result), result);
            }
        }

        /// <summary>Sets or replaces the username and password of a license.</summary>
        public LicenseResult Register(string license, string username, string password)
        {
            Require(license, "license");
            Require(username, "username");
            Require(password, "password");
            using (var strings = new NativeStrings())
            {
                ResultHandle result;
                return Take(Native.lc_register(handle, strings.Add(license), strings.Add(username), strings.Add(password), out result), result);
            }
        }

        /// <summary>
        /// Counts `amount` against a usage counter (USAGE_RECORDED; the data is the counter).
        /// One usage id goes with every retry, so a lost answer counts once; pass your own
        /// to repeat a call that ended in NETWORK_ERROR.
        /// </summary>
        public LicenseResult RecordUsage(string counter, long amount = 1, string usageId = null, string license = null, string username = null, string password = null, string hwid = null)
        {
            Require(counter, "counter");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                ResultHandle result;
                return Take(Native.lc_record_usage(handle, ref credentials, strings.Add(counter), amount, strings.Add(usageId), out result), result);
            }
        }

        /// <summary>
        /// Takes or renews this device's floating seat now (throwing the refusal, e.g.
        /// SEATS_EXHAUSTED) and keeps it on a thread of its own; onLost runs on that
        /// thread, once, when the seat is lost, and must not call the heartbeat.
        /// intervalMs: 0 renews at about half the lease.
        /// </summary>
        public Heartbeat StartHeartbeat(string hwid, Action<LicenseException> onLost = null, string license = null, string username = null, string password = null, int intervalMs = 0)
        {
            Require(hwid, "hwid");
            return Heartbeat.Start(handle, license, username, password, hwid, onLost, intervalMs);
        }

        /// <summary>
        /// Checks out a license file for this device (POST /license-file, with a check's
        /// effects), verifies it with this request's nonce and keeps it in stateDir as
        /// license.lic; DataJson holds the license data and license_file.
        /// lifetimeSeconds 0: the application's longest; encrypt: for this license key and device only.
        /// </summary>
        public LicenseResult LicenseFile(string hwid, string license = null, string username = null, string password = null, long lifetimeSeconds = 0, bool encrypt = false)
        {
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                Native.Credentials credentials = strings.Credentials(license, username, password, hwid);
                Native.FileOptions options = FileOptions(lifetimeSeconds, encrypt);
                ResultHandle result;
                return Take(Native.lc_license_file(handle, ref credentials, ref options, out result), result);
            }
        }

        /// <summary>
        /// An activation request for a device that cannot reach the service (lfr1.…), its
        /// nonce kept in stateDir until the file made from it is loaded; with the customer
        /// portal's URL, also the link to show as text or a QR code.
        /// </summary>
        public ActivationRequestResult ActivationRequest(string license, string hwid, long lifetimeSeconds = 0, bool encrypt = false, string portalUrl = null)
        {
            Require(license, "license");
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                Native.FileOptions options = FileOptions(lifetimeSeconds, encrypt);
                ResultHandle result;
                using (LicenseResult made = Take(Native.lc_activation_request(handle, strings.Add(license), strings.Add(hwid), ref options, strings.Add(portalUrl), out result), result))
                {
                    return new ActivationRequestResult(made.GetString("request"), made.GetString("link"));
                }
            }
        }

        /// <summary>
        /// Accepts a license file made for one of this program's waiting activation requests
        /// and keeps it in stateDir, where Check finds it (LICENSE_FILE_VALID; DataJson: the
        /// file's claims). Throws LICENSE_FILE_MISMATCH, LICENSE_FILE_EXPIRED,
        /// INVALID_SIGNATURE or CLOCK_MOVED_BACK.
        /// </summary>
        public LicenseResult LoadLicenseFile(string text)
        {
            Require(text, "text");
            using (var strings = new NativeStrings())
            {
                ResultHandle result;
                return Take(Native.lc_load_license_file(handle, strings.Add(text), out result), result);
            }
        }

        /// <summary>Deletes the stored license file of this license and device and gives its return code (lfx1.…) for the dashboard or the customer portal.</summary>
        public string ReturnCode(string license, string hwid)
        {
            Require(license, "license");
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                ResultHandle result;
                using (LicenseResult made = Take(Native.lc_return_code(handle, strings.Add(license), strings.Add(hwid), out result), result))
                {
                    return made.GetString("return_code");
                }
            }
        }

        /// <summary>Returns the stored license file online (LICENSE_FILE_RETURNED) and deletes it once the service took it back; a refusal keeps it.</summary>
        public LicenseResult ReturnLicenseFile(string license, string hwid)
        {
            Require(license, "license");
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                ResultHandle result;
                return Take(Native.lc_return_license_file(handle, strings.Add(license), strings.Add(hwid), out result), result);
            }
        }

        /// <summary>
        /// This device's trial (POST /trial): TRIAL_STARTED, or TRIAL_RESUMED for a device whose
        /// trial runs; GetString("license") is the trial's key to check with. Throws
        /// TRIAL_EXPIRED, TRIAL_CONVERTED, TRIAL_LIMIT_REACHED or TRIALS_DISABLED.
        /// </summary>
        public LicenseResult StartTrial(string hwid)
        {
            Require(hwid, "hwid");
            using (var strings = new NativeStrings())
            {
                ResultHandle result;
                return Take(Native.lc_start_trial(handle, strings.Add(hwid), out result), result);
            }
        }

        /// <summary>This machine's id for this application (SHA-256 in hex of the system's machine id, the user's name and the app id).</summary>
        public string MachineId()
        {
            string id = Native.Read(Native.lc_machine_id(handle));
            if (id == null) throw new LicenseException("INTERNAL_ERROR", null, "out of memory");
            return id;
        }

        /// <summary>Frees the native client once every call and heartbeat on it has ended.</summary>
        public void Dispose()
        {
            handle.Dispose();
        }

        internal ClientHandle Handle { get { return handle; } }

        internal LicenseResult Take(int status, ResultHandle result)
        {
            if (status == Native.Ok) return new LicenseResult(result);
            result.Dispose();
            throw Native.LastError(handle);
        }

        private static Native.FileOptions FileOptions(long lifetimeSeconds, bool encrypt)
        {
            return new Native.FileOptions { LifetimeSeconds = lifetimeSeconds, Encrypt = encrypt ? (byte)1 : (byte)0 };
        }

        private static void Require(string value, string name)
        {
            if (value == null) throw new ArgumentNullException(name);
        }

        /// <summary>
        /// lc_options laid out by hand: its timeout_ms is a C long, 4 bytes on Windows
        /// and on 32-bit systems, 8 elsewhere, which no fixed managed layout matches.
        /// </summary>
        private static IntPtr Options(IntPtr url, IntPtr appId, IntPtr publicKey, IntPtr stateDir, int timeoutMs, GCHandle clock)
        {
            int pointer = IntPtr.Size;
            bool longIs64 = pointer == 8 && Environment.OSVersion.Platform != PlatformID.Win32NT;
            int timeoutAt = 4 * pointer;
            int clockAt = (timeoutAt + (longIs64 ? 8 : 4) + pointer - 1) / pointer * pointer;
            int size = clockAt + 2 * pointer;
            IntPtr options = Marshal.AllocHGlobal(size);
            for (int i = 0; i < size; i++) Marshal.WriteByte(options, i, 0);
            Marshal.WriteIntPtr(options, 0, url);
            Marshal.WriteIntPtr(options, pointer, appId);
            Marshal.WriteIntPtr(options, 2 * pointer, publicKey);
            Marshal.WriteIntPtr(options, 3 * pointer, stateDir);
            if (longIs64) Marshal.WriteInt64(options, timeoutAt, timeoutMs);
            else Marshal.WriteInt32(options, timeoutAt, timeoutMs);
            if (clock.IsAllocated)
            {
                Marshal.WriteIntPtr(options, clockAt, ClockPointer);
                Marshal.WriteIntPtr(options, clockAt + pointer, GCHandle.ToIntPtr(clock));
            }
            return options;
        }

        [MonoPInvokeCallback(typeof(Native.ClockFn))]
        private static long ClockFromNative(IntPtr clockData)
        {
            try
            {
                return ((Func<DateTimeOffset>)GCHandle.FromIntPtr(clockData).Target)().ToUnixTimeMilliseconds();
            }
            catch (Exception)
            {
                return DateTimeOffset.UtcNow.ToUnixTimeMilliseconds();
            }
        }
    }
}
