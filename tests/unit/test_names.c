/* SPDX-License-Identifier: MIT */
/*
 * test_names.c - names in tables (text/names.c, text.h "Names in tables")
 * and the demangler behind them (util/demangle.c): kernel names taken from
 * the shared real traces (resnet50, trace_filter_sampled, sglang decode)
 * keep apart in a 27-column name column (analyze's at 100 columns), a
 * mangled name is shown demangled, and width 0 keeps names whole.
 */
#include "testutil.h"

#include <string.h>

#include "text/text.h"
#include "util/demangle.h"

#define ADD                                                                                        \
	"void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, "        \
	"at::detail::Array<char*, 3> >(int, at::native::AddFunctor<float>, "                       \
	"at::detail::Array<char*, 3>)"
#define THRESHOLD                                                                                  \
	"void at::native::vectorized_elementwise_kernel<4, "                                       \
	"at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "                \
	"float)::{lambda(float, float)#1}, at::detail::Array<char*, 3> >(int, "                    \
	"at::native::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "                \
	"float)::{lambda(float, float)#1}, at::detail::Array<char*, 3>)"
#define CLAMP                                                                                      \
	"void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "                \
	"namespace)::clamp_min_scalar_kernel_impl(at::TensorIterator&, "                           \
	"c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() "              \
	"const::{lambda(float)#1}, at::detail::Array<char*, 2> >(int, at::native::(anonymous "     \
	"namespace)::clamp_min_scalar_kernel_impl(at::TensorIterator&, "                           \
	"c10::Scalar)::{lambda()#1}::operator()() const::{lambda()#8}::operator()() "              \
	"const::{lambda(float)#1}, at::detail::Array<char*, 2>)"
#define MULSCALAR                                                                                  \
	"void at::native::vectorized_elementwise_kernel<4, at::native::MulScalarFunctor<float, "   \
	"float>, at::detail::Array<char*, 2> >(int, at::native::MulScalarFunctor<float, float>, "  \
	"at::detail::Array<char*, 2>)"
#define FILL                                                                                       \
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "       \
	"at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "                      \
	"at::detail::Array<char*, 1>)"
#define BUNARY                                                                                     \
	"void at::native::vectorized_elementwise_kernel<4, "                                       \
	"at::native::BUnaryFunctor<at::native::AddFunctor<long> >, at::detail::Array<char*, 2> "   \
	">(int, at::native::BUnaryFunctor<at::native::AddFunctor<long> >, "                        \
	"at::detail::Array<char*, 2>)"
/* the split_embedding kernels of trace_filter_sampled_rank-0 (FBGEMM), parameters cut here */
#define SPLIT(w, k)                                                                                \
	"void split_embedding_backward_codegen_rowwise_adagrad_" w "_kernel_" k                    \
	"_per_row_1<c10::Half, float, c10::Half, 2ul, 32>(at::GenericPackedTensorAccessor<float, " \
	"2ul, at::RestrictPtrTraits, long>)"
/* ADD as CUPTI names it (mangled); Kineto writes it demangled in resnet50's trace */
#define ADD_MANGLED                                                                                \
	"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_10AddFunctorIfEENS_"                 \
	"6detail5ArrayIPcLi3E"                                                                     \
	"EEEEviT0_T1_"
/*
 * A kernel name of the sglang decode trace (ROCm), mangled in the trace; its
 * std::bfloat16_t (DF16b) is newer than libstdc++ 12's demangler
 */
#define AITER                                                                                      \
	"_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi16ELb0ELb0ELb1ELi1EEEvPT0_PT_PfS4_" \
	"S4_"                                                                                      \
	"S4_diiiiiiib"

static void fit(char **out, const char *const *in, size_t n, size_t w)
{
	assert_int_equal(gp__names_fit(out, in, n, w), 0);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(out[i]);
		if (w)
			assert_true(gp__text_width(out[i]) <= w);
	}
}

static void assert_apart(char **out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(out[i], out[j]) == 0)
				fail_msg("rows %zu and %zu both read '%s'", i, j, out[i]);
}

/* the two rows of the issue (AddFunctor, threshold_kernel) and their siblings in resnet50 */
static void test_issue_rows(void **state)
{
	const char *in[] = { ADD, THRESHOLD, CLAMP, MULSCALAR, FILL, BUNARY };
	char *out[6];

	(void)state;
	fit(out, in, 6, 27);
	assert_apart(out, 6);
	assert_non_null(strstr(out[0], "AddFunctor"));
	assert_non_null(strstr(out[1], "threshold"));
	assert_non_null(strstr(out[3], "MulScalar"));
	assert_non_null(strstr(out[4], "FillFunctor"));
	gp__names_free(out, 6);

	/* wide enough for the short forms: namespaces and parameters go, nothing is cut */
	fit(out, in, 2, 70);
	assert_string_equal(
	    out[0], "vectorized_elementwise_kernel<4, AddFunctor<float>, Array<char*, 3> >");
	gp__names_free(out, 2);
}

/* the rule's steps, one name at a time */
static void test_steps(void **state)
{
	const char *in[] = { ADD };
	char *out[1];

	(void)state;
	/* fits: as is, without "void " */
	fit(out, (const char *[]){ "void k<int>(int)" }, 1, 27);
	assert_string_equal(out[0], "k<int>(int)");
	gp__names_free(out, 1);
	/* 1. short form */
	fit(out, in, 1, 70);
	assert_string_equal(
	    out[0], "vectorized_elementwise_kernel<4, AddFunctor<float>, Array<char*, 3> >");
	gp__names_free(out, 1);
	/* 2. deep template arguments */
	fit(out, in, 1, 60);
	assert_string_equal(out[0], "vectorized_elementwise_kernel<4, AddFunctor<…>, Array<…> >");
	gp__names_free(out, 1);
	/* 3. cut (alone, nothing to keep apart from) */
	fit(out, in, 1, 27);
	assert_string_equal(out[0], "vectorized_elementwise_ker…");
	gp__names_free(out, 1);
	/* width 0: whole */
	fit(out, in, 1, 0);
	assert_string_equal(out[0], &ADD[5]); /* without "void " */
	gp__names_free(out, 1);
	/* inner parameter lists as "(…)", the function's own dropped */
	fit(out, (const char *[]){ THRESHOLD }, 1, 100);
	assert_string_equal(out[0],
	                    "vectorized_elementwise_kernel<4, threshold_kernel_impl<float>(…)::"
	                    "{lambda(…)#1}, Array<char*, 3> >");
	gp__names_free(out, 1);
}

/* not C++ (brackets that do not balance), control characters, NULL */
static void test_plain(void **state)
{
	const char *in[] = { "Memcpy HtoD (Pageable -> Device)", "a\tb", NULL,
		             "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" };
	char *out[4];

	(void)state;
	fit(out, in, 4, 20);
	assert_string_equal(out[0], "Memcpy HtoD (Pageab…");
	assert_string_equal(out[1], "a?b");
	assert_string_equal(out[2], "-");
	assert_string_equal(out[3], "enumerate(DataLoade…"); /* Python's: not C++ */
	gp__names_free(out, 4);
	/* the same name twice stays as it is */
	fit(out, (const char *[]){ ADD, ADD }, 2, 27);
	assert_string_equal(out[0], out[1]);
	gp__names_free(out, 2);
}

/* FBGEMM's kernels differ in the middle: "weighted"/"unweighted", "cta"/"warp" */
static void test_middle(void **state)
{
	const char *in[] = { SPLIT("unweighted", "cta"), SPLIT("unweighted", "warp"),
		             SPLIT("weighted", "cta"), SPLIT("weighted", "warp") };
	char *out[4];

	(void)state;
	fit(out, in, 4, 27);
	assert_apart(out, 4);
	gp__names_free(out, 4);
	fit(out, in, 4, 40);
	assert_apart(out, 4);
	gp__names_free(out, 4);
}

/* a mangled name is shown demangled (when a demangler is present), as nsys shows it */
static void test_demangle(void **state)
{
	struct gp_buf b = GP_BUF_INIT;
	char *out[1];

	(void)state;
	if (strcmp(gp__demangle_backend(), "none") == 0)
		skip();
	assert_int_equal(gp__demangle(&b, ADD_MANGLED), 1);
	assert_string_equal(b.buf, ADD);
	gp__buf_release(&b);
	assert_int_equal(gp__demangle(&b, "_Z7kernelAPf"), 1); /* tests/inject/driver_sim.c's */
	assert_string_equal(b.buf, "kernelA(float*)");
	gp__buf_release(&b);
	/* not mangled, or not valid: nothing */
	assert_int_equal(gp__demangle(&b, "ampere_sgemm_32x32_sliced1x4_nn"), 0);
	assert_int_equal(gp__demangle(&b, "_Zfoo"), 0);
	assert_int_equal(b.len, 0);
	/* in a table: demangled, then the rule */
	fit(out, (const char *[]){ ADD_MANGLED }, 1, 0);
	assert_string_equal(out[0], &ADD[5]); /* without "void " */
	gp__names_free(out, 1);
	fit(out, (const char *[]){ ADD_MANGLED }, 1, 70);
	assert_string_equal(
	    out[0], "vectorized_elementwise_kernel<4, AddFunctor<float>, Array<char*, 3> >");
	gp__names_free(out, 1);
	/* a name the demangler cannot read stays as it is (libstdc++ 12: DF16b) */
	if (gp__demangle(&b, AITER) == 1)
		assert_non_null(strstr(b.buf, "aiter::add_rmsnorm_quant_kernel<"));
	else
		assert_int_equal(b.len, 0);
	gp__buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_rows), cmocka_unit_test(test_steps),
		cmocka_unit_test(test_plain),      cmocka_unit_test(test_middle),
		cmocka_unit_test(test_demangle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
