// Test helper for t0410: what an upstream BOINC project's keys/ holds, made
// by the real BOINC library (libboinc_crypt), as upstream's crypt_prog
// -genkey makes it, and a file signed with it by libboinc's sign_file (what
// upstream's sign_executable prints). Built by the test only when
// libboinc-app-dev is installed.
//
// usage: boinc_genkey PRIVATE_OUT PUBLIC_OUT        key pair in BOINC's text
//        boinc_genkey --sign FILE PRIVATE_TEXT      the signature, on stdout
#include <cstdio>
#include <cstring>
#include <openssl/bn.h>
#include <openssl/rsa.h>

#include "crypt.h"

int main(int argc, char** argv) {
    if (argc == 4 && !strcmp(argv[1], "--sign")) {
        R_RSA_PRIVATE_KEY key;
        FILE* f = fopen(argv[3], "r");
        if (!f || scan_key_hex(f, (KEY*)&key, sizeof(key))) {
            fprintf(stderr, "cannot read %s\n", argv[3]);
            return 2;
        }
        fclose(f);
        unsigned char buf[SIGNATURE_SIZE_BINARY];
        DATA_BLOCK sig;
        sig.data = buf;
        sig.len = sizeof(buf);
        if (sign_file(argv[2], key, sig)) {
            fprintf(stderr, "sign_file failed\n");
            return 2;
        }
        print_hex_data(stdout, sig);
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: boinc_genkey PRIVATE_OUT PUBLIC_OUT | --sign FILE PRIVATE\n");
        return 2;
    }
    R_RSA_PRIVATE_KEY priv;
    R_RSA_PUBLIC_KEY pub;
    RSA* rp = RSA_new();
    BIGNUM* e = BN_new();
    BN_set_word(e, 65537);
    if (!RSA_generate_key_ex(rp, 1024, e, NULL)) {
        fprintf(stderr, "key generation failed\n");
        return 2;
    }
    openssl_to_keys(rp, 1024, priv, pub);
    FILE* fpriv = fopen(argv[1], "w");
    FILE* fpub = fopen(argv[2], "w");
    if (!fpriv || !fpub) return 2;
    print_key_hex(fpriv, (KEY*)&priv, sizeof(priv));
    print_key_hex(fpub, (KEY*)&pub, sizeof(pub));
    fclose(fpriv);
    fclose(fpub);
    return 0;
}
