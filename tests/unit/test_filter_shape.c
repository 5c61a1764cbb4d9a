/*
 * test_filter_shape.c - sat_filter_shape (parse/join/filter_shape.c): RFC 4515
 * filters reduced to their shape, snprintf-like output, malformed input.
 */
#include "check.h"
#include "satscope/parse.h"

static char out[256];

static const char *shape(const char *f)
{
    sat_filter_shape(f, strlen(f), out, sizeof out);
    return out;
}

int main(void)
{
    CHECK_EQ_STR(shape("(&(uid=jdoe)(cn=J*))"), "(&(uid=*)(cn=*))");
    CHECK_EQ_STR(shape("(objectClass=*)"), "(objectclass=*)");
    CHECK_EQ_STR(shape("(|(Member=uid=root,cn=users)(memberUid=root))"), "(|(member=*)(memberuid=*))");
    CHECK_EQ_STR(shape("(!(cn=a))"), "(!(cn=*))");
    CHECK_EQ_STR(shape("(age>=30)"), "(age>=*)");
    CHECK_EQ_STR(shape("(age<=30)"), "(age<=*)");
    CHECK_EQ_STR(shape("(sn~=smith)"), "(sn~=*)");
    CHECK_EQ_STR(shape("(cn:dn:2.4.6.8.10:=Dino)"), "(cn:dn:2.4.6.8.10:=*)");
    CHECK_EQ_STR(shape("(:caseExactMatch:=x)"), "(:caseexactmatch:=*)");
    CHECK_EQ_STR(shape(" ( & ( uid = a b ) ( cn=x ) ) "), "(&(uid=*)(cn=*))");
    CHECK_EQ_STR(shape("(cn=a\\29b)"), "(cn=*)");
    CHECK_EQ_STR(shape("(mobile=+1 123 456-7890)"), "(mobile=*)");
    CHECK_EQ_STR(shape("(uid=)"), "(uid=*)");
    CHECK_EQ_STR(shape("uid=jdoe"), "uid=*");
    /* malformed: shaped as far as it goes */
    CHECK_EQ_STR(shape("(&(uid=a)(cn"), "(&(uid=*)(cn");
    CHECK_EQ_STR(shape("(uid=a\\"), "(uid=*");
    CHECK_EQ_STR(shape(")))((("), ")))(((");
    CHECK_EQ_STR(shape(""), "");
    /* snprintf-like: full length returned, output cut and terminated */
    char small[6];
    size_t n = sat_filter_shape("(&(uid=a)(cn=b))", 16, small, sizeof small);
    CHECK_EQ_INT(n, 16);
    CHECK_EQ_STR(small, "(&(ui");
    CHECK_EQ_INT(sat_filter_shape("(uid=a)", 7, NULL, 0), 7);
    /* never reads past len: the value's end is the buffer's end */
    const char cut[] = {'(', 'u', 'i', 'd', '=', 'a', '\\'};
    n = sat_filter_shape(cut, sizeof cut, out, sizeof out);
    CHECK_EQ_STR(out, "(uid=*");
    return CHECK_DONE();
}
