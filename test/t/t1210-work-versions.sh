#!/bin/sh
test_description='update_versions registers app versions with signed files in the download hierarchy'
. "$WSEQ_SRCDIR/test/test-lib.sh"

test_atexit "wseq_sandbox down '$TRASH_DIRECTORY/sb'"
T="$WSEQ_SRCDIR/test/data/templates"
PLAT=x86_64-pc-linux-gnu

sql() { test_sql "$WSEQ_DB_NAME" -e "$1"; }
nav() { sql "select count(*) from app_version"; }
download_files() { (cd "$PROJECT_DIR/download" && find . -type f | sort); }
# The xml_doc of an app version, with real newlines.
av_doc() { sql "select xml_doc from app_version where version_num=$1" | sed "s/\\\\n/\n/g"; }

test_expect_success 'a private project with app sim' '
	wseq_sandbox up --no-daemons sb >up.log 2>&1 &&
	wseq_sandbox env sb >env && . ./env &&
	cp "$T/project.xml" "$PROJECT_DIR/" && (cd "$PROJECT_DIR" && xadd --quiet)
'
. ./env
V="$PROJECT_DIR/apps/sim/sim_1.02_$PLAT"

test_expect_success 'update_versions adds a version from its directory and version.xml' '
	mkdir -p "$V" &&
	printf "#!/bin/sh\necho 0 >boinc_finish_called\n" >"$V/sim_wrapper.sh" &&
	echo "table 1 2 3" >"$V/sim_table.dat" &&
	cat >"$V/version.xml" <<-EOF &&
	<version>
	    <file>
	        <physical_name>sim_wrapper.sh</physical_name>
	        <main_program/>
	        <copy_file/>
	    </file>
	    <file>
	        <physical_name>sim_table.dat</physical_name>
	        <logical_name>table</logical_name>
	    </file>
	    <api_version>7.20.0</api_version>
	</version>
	EOF
	(cd "$PROJECT_DIR" && update_versions) >uv.out &&
	test_grep "added app version sim_1.02_$PLAT" uv.out &&
	sql "select a.name, v.version_num, p.name, v.plan_class from app_version v
		join app a on a.id=v.appid join platform p on p.id=v.platformid" >row &&
	printf "sim\t102\t$PLAT\t\n" >expect && test_cmp expect row
'

test_expect_success 'its xml_doc is what the client needs: signed executable files and the app_version' '
	av_doc 102 >doc &&
	test "$(grep -c "<file_info>" doc)" = 2 &&
	test "$(grep -c "<executable/>" doc)" = 2 &&
	test "$(grep -c "<file_signature>" doc)" = 2 &&
	test "$(grep -c "<main_program/>" doc)" = 1 &&
	test_grep "<app_name>sim</app_name>" doc &&
	test_grep "<version_num>102</version_num>" doc &&
	test_grep "<platform>$PLAT</platform>" doc &&
	test_grep "<api_version>7.20.0</api_version>" doc &&
	test_grep "<open_name>table</open_name>" doc &&
	test_grep -v "<plan_class>" doc &&
	awk "/<file_ref>/,/<\/file_ref>/" doc | tr -d "\n" >refs &&
	test_grep "<file_name>sim_wrapper.sh</file_name><copy_file/><main_program/>" refs
'

test_expect_success 'every file signature verifies with the public code signing key, and the URL serves the file' '
	for f in sim_wrapper.sh sim_table.dat; do
		awk -v f="$f" "/<name>/ { cur = (index(\$0, \"<name>\" f \"</name>\") > 0) }
			cur && /<file_signature>/ { on = 1; next }
			cur && /<\/file_signature>/ { on = 0; sub(/<\/file_signature>.*/, \"\"); if (\$0 != \"\") print; next }
			on { print }" doc >"$f.sig" &&
		test -s "$f.sig" &&
		url=$(sed -n "s|<url>\(.*/$f\)</url>|\1|p" doc) &&
		curl -sf "$url" >"$f.got" && test_cmp "$V/$f" "$f.got" &&
		crypt_prog -verify "$f.got" "$f.sig" "$PROJECT_DIR/keys/code_sign_public" >verify.out &&
		test_grep "signature valid" verify.out &&
		test_grep "<nbytes>$(wc -c <"$V/$f" | tr -d " ")</nbytes>" doc || return 1
	done &&
	echo tampered >>sim_table.dat.got &&
	test_must_fail crypt_prog -verify sim_table.dat.got sim_table.dat.sig "$PROJECT_DIR/keys/code_sign_public"
'

test_expect_success 'running it again is harmless' '
	(cd "$PROJECT_DIR" && update_versions) >uv2.out &&
	test_grep "app version sim_1.02_$PLAT exists" uv2.out &&
	test "$(nav)" = 1
'

test_expect_success 'a directory with a plan class and one file, without version.xml' '
	V2="$PROJECT_DIR/apps/sim/sim_1.03_${PLAT}__mt" && mkdir -p "$V2" &&
	printf "#!/bin/sh\nexit 0\n" >"$V2/sim_mt" &&
	(cd "$PROJECT_DIR" && update_versions --quiet) &&
	test "$(sql "select plan_class from app_version where version_num=103")" = mt &&
	av_doc 103 >doc103 && test_grep "<plan_class>mt</plan_class>" doc103 &&
	test_grep "<file_name>sim_mt</file_name>" doc103 && test_grep "<main_program/>" doc103
'

test_expect_success 'refused: an app that xadd does not know; nothing added' '
	before=$(nav) && download_files >files.before &&
	mkdir -p "$PROJECT_DIR/apps/nosuch/nosuch_1.00_$PLAT" "$PROJECT_DIR/apps/sim/sim_1.04_$PLAT" &&
	echo x >"$PROJECT_DIR/apps/nosuch/nosuch_1.00_$PLAT/nosuch" &&
	echo y >"$PROJECT_DIR/apps/sim/sim_1.04_$PLAT/sim_104" &&
	(cd "$PROJECT_DIR" && test_must_fail update_versions) >out 2>err &&
	test_grep "unknown app nosuch" err && test_line_count = 1 err &&
	test "$(nav)" = "$before" &&
	download_files >files.after && test_cmp files.before files.after &&
	rm -r "$PROJECT_DIR/apps/nosuch"
'

test_expect_success 'refused: an unknown platform' '
	before=$(nav) &&
	mkdir -p "$PROJECT_DIR/apps/sim/sim_1.05_sparc-sun-solaris" &&
	echo z >"$PROJECT_DIR/apps/sim/sim_1.05_sparc-sun-solaris/sim" &&
	(cd "$PROJECT_DIR" && test_must_fail update_versions) 2>err &&
	test_grep "unknown platform sparc-sun-solaris" err && test_line_count = 1 err &&
	test "$(nav)" = "$before" &&
	rm -r "$PROJECT_DIR/apps/sim/sim_1.05_sparc-sun-solaris"
'

test_expect_success 'refused: a physical name already used with other content' '
	before=$(nav) &&
	mkdir -p "$PROJECT_DIR/apps/sim/sim_1.06_$PLAT" &&
	echo "other table" >"$PROJECT_DIR/apps/sim/sim_1.06_$PLAT/sim_table.dat" &&
	printf "#!/bin/sh\n" >"$PROJECT_DIR/apps/sim/sim_1.06_$PLAT/sim_1.06_$PLAT" &&
	(cd "$PROJECT_DIR" && test_must_fail update_versions) 2>err &&
	test_grep "file immutability violation for sim_table.dat" err && test_line_count = 1 err &&
	test "$(nav)" = "$before" &&
	rm -r "$PROJECT_DIR/apps/sim/sim_1.06_$PLAT" &&
	(cd "$PROJECT_DIR" && update_versions --quiet) &&
	test "$(nav)" = "$((before + 1))"
'

test_expect_success 'each plan class version is shown with what it needs (plan_class_spec.xml)' '
	cp "$WSEQ_SRCDIR/test/data/plan_class/plan_class_spec.xml" "$PROJECT_DIR/" &&
	(cd "$PROJECT_DIR" && update_versions) >uv.out &&
	test_grep "app version sim_1.03_${PLAT}__mt exists" uv.out &&
	test_grep "^    plan class mt: multi-threaded, 2..8 CPUs, --nthreads N, speed x 0.98$" uv.out &&
	V7="$PROJECT_DIR/apps/sim/sim_1.07_${PLAT}__cuda" && mkdir -p "$V7" &&
	printf "#!/bin/sh\nexit 0\n" >"$V7/sim_cuda" &&
	(cd "$PROJECT_DIR" && update_versions) >uv.out &&
	test_grep "added app version sim_1.07_${PLAT}__cuda: sim 107 $PLAT cuda" uv.out &&
	test_grep "^    plan class cuda: NVIDIA GPU, CUDA, CUDA >= 11.0, compute capability >= 5.0" uv.out
'

test_expect_success 'a version whose plan class the file lacks is added with a warning: no host will get it' '
	V8="$PROJECT_DIR/apps/sim/sim_1.08_${PLAT}__cuda_fermi" && mkdir -p "$V8" &&
	printf "#!/bin/sh\nexit 0\n" >"$V8/sim_fermi" &&
	(cd "$PROJECT_DIR" && update_versions --quiet) >uv.out &&
	test_grep "^warning: .*sim_1.08_${PLAT}__cuda_fermi: plan class cuda_fermi is not in plan_class_spec.xml: this version will be sent to no host" uv.out &&
	test "$(sql "select plan_class from app_version where version_num=108")" = cuda_fermi &&
	rm "$PROJECT_DIR/plan_class_spec.xml" &&
	(cd "$PROJECT_DIR" && update_versions) >uv.out &&
	test_grep "plan class mt is not in plan_class_spec.xml" uv.out &&
	test_grep "plan class cuda is not in plan_class_spec.xml" uv.out
'

test_expect_success 'version.xml as upstream writes it: every element taken, an unknown one warned about' '
	V9="$PROJECT_DIR/apps/sim/sim_1.09_${PLAT}__mt" && mkdir -p "$V9" &&
	printf "#!/bin/sh\nexit 0\n" >"$V9/sim_main" &&
	echo data >"$V9/sim_data_109.dat" &&
	cat >"$V9/version.xml" <<-EOF &&
	<version>
	    <file>
	        <physical_name>sim_main</physical_name>
	        <main_program/>
	        <url>https://mirror.example.org/sim_main</url>
	        <gzip/>
	    </file>
	    <file>
	        <physical_name>sim_data_109.dat</physical_name>
	        <logical_name>data.dat</logical_name>
	        <copy_file>1</copy_file>
	    </file>
	    <dont_throttle/>
	    <is_wrapper/>
	    <needs_network/>
	    <api_version>7.22.0</api_version>
	    <file_prefix>sim109</file_prefix>
	    <beta/>
	    <frobnicate>1</frobnicate>
	</version>
	EOF
	(cd "$PROJECT_DIR" && update_versions) >uv.out 2>err &&
	test_grep "added app version sim_1.09_${PLAT}__mt" uv.out &&
	test_grep "version.xml:19: <frobnicate> is not an element of version.xml that update_versions knows; ignored" err &&
	test_grep "version.xml:6: <gzip/>: wseq sends sim_main uncompressed" err &&
	test_grep "version.xml:18: <beta/>: stored in app_version.beta" err &&
	test "$(sql "select beta from app_version where version_num=109")" = 1 &&
	av_doc 109 >doc109 &&
	test_grep "<url>https://mirror.example.org/sim_main</url>" doc109 &&
	test "$(grep -c "<url>" doc109)" = 2 &&
	test_grep "<file_prefix>sim109</file_prefix>" doc109 &&
	test_grep "<api_version>7.22.0</api_version>" doc109 &&
	test_grep "<dont_throttle/>" doc109 && test_grep "<is_wrapper/>" doc109 &&
	test_grep "<needs_network/>" doc109 &&
	awk "/<file_ref>/,/<\/file_ref>/" doc109 | tr -d "\n" >refs109 &&
	test_grep "<file_name>sim_data_109.dat</file_name><open_name>data.dat</open_name><copy_file/></file_ref>" refs109 &&
	test_grep "<file_name>sim_main</file_name><main_program/></file_ref>" refs109
'

test_done
