using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace Licensing
{
    /// <summary>The C library's functions (clients/c, include/licensing.h), loaded from liblicensing.</summary>
    internal static class Native
    {
        private const string Library = "liblicensing";

        internal const int Ok = 0;
        internal const int Refused = 1;

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate long ClockFn(IntPtr clockData);

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        internal delegate void LostFn(IntPtr userData, IntPtr code, IntPtr dataJson);

        [StructLayout(LayoutKind.Sequential)]
        internal struct Credentials
        {
            internal IntPtr License;
            internal IntPtr Username;
            internal IntPtr Password;
            internal IntPtr Hwid;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct HeartbeatOptions
        {
            internal IntPtr OnLost;
            internal IntPtr UserData;
            internal long IntervalMs;
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct FileOptions
        {
            internal long LifetimeSeconds;
            internal byte Encrypt; // a C bool
        }

        [StructLayout(LayoutKind.Sequential)]
        internal struct Exchange
        {
            internal IntPtr Nonce;
            internal IntPtr RequestDigest;
            internal IntPtr License;
            internal int Status;
            internal IntPtr ContentDigest;
            internal IntPtr SignatureInput;
            internal IntPtr Signature;
            internal IntPtr Body;
            internal long BodyLength;
        }

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern ClientHandle lc_client_new(IntPtr options);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void lc_client_free(IntPtr client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_last_error_code(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_last_error_data_json(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_last_error_detail(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_check(ClientHandle client, ref Credentials credentials, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_borrow(ClientHandle client, ref Credentials credentials, long seconds, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_release(ClientHandle client, ref Credentials credentials, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_reset_hwid(ClientHandle client, ref Credentials credentials, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_register(ClientHandle client, IntPtr license, IntPtr username, IntPtr password, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_record_usage(ClientHandle client, ref Credentials credentials, IntPtr counter, long amount, IntPtr usageId, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_license_file(ClientHandle client, ref Credentials credentials, ref FileOptions options, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_activation_request(ClientHandle client, IntPtr license, IntPtr hwid, ref FileOptions options, IntPtr portalUrl, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_load_license_file(ClientHandle client, IntPtr text, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_return_code(ClientHandle client, IntPtr license, IntPtr hwid, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_return_license_file(ClientHandle client, IntPtr license, IntPtr hwid, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_start_trial(ClientHandle client, IntPtr hwid, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_machine_id(ClientHandle client);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_verify_answer(ClientHandle client, ref Exchange exchange, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_verify_token(ClientHandle client, IntPtr token, ref Credentials expected, IntPtr nonce, long nowSeconds, out ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_result_message(ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_result_data_json(ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        [return: MarshalAs(UnmanagedType.I1)]
        internal static extern bool lc_result_offline(ResultHandle result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_result_string(ResultHandle result, IntPtr name);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        [return: MarshalAs(UnmanagedType.I1)]
        internal static extern bool lc_result_integer(ResultHandle result, IntPtr name, out long value);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        [return: MarshalAs(UnmanagedType.I1)]
        internal static extern bool lc_result_has_feature(ResultHandle result, IntPtr feature);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern void lc_result_free(IntPtr result);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_heartbeat_start(ClientHandle client, ref Credentials credentials, ref HeartbeatOptions options, out IntPtr heartbeat);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_heartbeat_renew_now(IntPtr heartbeat);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern long lc_heartbeat_lease_expires_at(IntPtr heartbeat);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern IntPtr lc_heartbeat_lost_code(IntPtr heartbeat);

        [DllImport(Library, CallingConvention = CallingConvention.Cdecl)]
        internal static extern int lc_heartbeat_stop(IntPtr heartbeat);

        /// <summary>A NUL-terminated UTF-8 string of the library as a string; null for NULL.</summary>
        internal static string Read(IntPtr text)
        {
            if (text == IntPtr.Zero) return null;
            int length = 0;
            while (Marshal.ReadByte(text, length) != 0) length++;
            byte[] bytes = new byte[length];
            Marshal.Copy(text, bytes, 0, length);
            return Encoding.UTF8.GetString(bytes);
        }

        /// <summary>The calling thread's last failure on this client, as the exception to throw.</summary>
        internal static LicenseException LastError(ClientHandle client)
        {
            return new LicenseException(Read(lc_last_error_code(client)) ?? "INTERNAL_ERROR", Read(lc_last_error_data_json(client)), Read(lc_last_error_detail(client)));
        }
    }

    /// <summary>
    /// UTF-8 copies of strings in unmanaged memory for one call, freed together.
    /// (netstandard2.0 has no UTF-8 string marshalling that every runtime honours,
    /// and the ANSI one is not UTF-8 on Windows.)
    /// </summary>
    internal sealed class NativeStrings : IDisposable
    {
        private readonly List<IntPtr> owned = new List<IntPtr>();

        internal IntPtr Add(string text)
        {
            if (text == null) return IntPtr.Zero;
            byte[] bytes = Encoding.UTF8.GetBytes(text);
            IntPtr copy = Marshal.AllocHGlobal(bytes.Length + 1);
            owned.Add(copy);
            Marshal.Copy(bytes, 0, copy, bytes.Length);
            Marshal.WriteByte(copy, bytes.Length, 0);
            return copy;
        }

        internal Native.Credentials Credentials(string license, string username, string password, string hwid)
        {
            return new Native.Credentials { License = Add(license), Username = Add(username), Password = Add(password), Hwid = Add(hwid) };
        }

        public void Dispose()
        {
            foreach (IntPtr copy in owned) Marshal.FreeHGlobal(copy);
            owned.Clear();
        }
    }

    /// <summary>
    /// The C client; freed once no call or heartbeat on it is running (SafeHandle
    /// counts them), and with it the clock it calls back.
    /// </summary>
    internal sealed class ClientHandle : SafeHandle
    {
        private ClientHandle() : base(IntPtr.Zero, true) { }

        internal GCHandle Clock;

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            Native.lc_client_free(handle);
            if (Clock.IsAllocated) Clock.Free();
            return true;
        }
    }

    /// <summary>A result of the C library, freed with its LicenseResult.</summary>
    internal sealed class ResultHandle : SafeHandle
    {
        private ResultHandle() : base(IntPtr.Zero, true) { }

        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }

        protected override bool ReleaseHandle()
        {
            Native.lc_result_free(handle);
            return true;
        }
    }

    /// <summary>Marks the methods native code calls back, which Unity's IL2CPP compiles ahead of time only when marked (it goes by the attribute's name).</summary>
    [AttributeUsage(AttributeTargets.Method)]
    internal sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        internal MonoPInvokeCallbackAttribute(Type delegateType)
        {
            DelegateType = delegateType;
        }

        internal Type DelegateType { get; private set; }
    }
}
