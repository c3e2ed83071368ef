# The suite's and the benchmarks' projects run every host under the admin's
# account: one_account_many_hosts CONFIG_XML lets one account's hosts share a
# quorum and hold any number of sequences (one_result_per_user_per_wu and
# max_sequences_per_user, on by default in a real project). Done once: a
# file that sets one_result_per_user_per_wu already is left as it is.
one_account_many_hosts() {
	grep -q "<one_result_per_user_per_wu>" "$1" && return 0
	sed -i "0,/<config>/s||<config>\n    <one_result_per_user_per_wu>0</one_result_per_user_per_wu>\n    <max_sequences_per_user>100000</max_sequences_per_user>|" "$1"
}
