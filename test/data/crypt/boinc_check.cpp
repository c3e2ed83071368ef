// Test helper for t0201: check a code signature with the real BOINC 7.20
// client library (libboinc_crypt's check_file_signature2 and libboinc's
// md5_file, the calls the client makes in FILE_INFO::verify_file).
// Built by the test only when libboinc-app-dev is installed.
//
// usage: boinc_check FILE SIGNATURE_FILE PUBLIC_KEY_TEXT_FILE
// prints "valid" (exit 0), "invalid" (exit 1) or "error N" (exit 2).
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "crypt.h"
#include "md5_file.h"

static std::string slurp(const char* path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: boinc_check FILE SIGNATURE_FILE PUBLIC_KEY_FILE\n");
        return 2;
    }
    char md5[MD5_LEN];
    double nbytes;
    int retval = md5_file(argv[1], md5, nbytes);
    if (retval) {
        printf("error %d\n", retval);
        return 2;
    }
    std::string sig = slurp(argv[2]), key = slurp(argv[3]);
    bool answer = false;
    retval = check_file_signature2(md5, sig.c_str(), key.c_str(), answer);
    if (retval) {
        printf("error %d\n", retval);
        return 2;
    }
    printf("%s\n", answer ? "valid" : "invalid");
    return answer ? 0 : 1;
}
