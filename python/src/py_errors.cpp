// The one exception translator: each tack::*Error becomes the Python built-in of the same name;
// tack::CompileError becomes tack.CompileError, carrying kernel, line and column.
#include <string>

#include "py_convert.hpp"

namespace tack::python {
namespace {

// tack.CompileError, created once at import and kept for the life of the process.
PyObject* compile_error_type = nullptr;

void set_compile_error(const CompileError& e) {
  nb::object exc = nb::steal(PyObject_CallFunction(compile_error_type, "s", e.what()));
  if (!exc.is_valid()) return;  // the constructor's own error stays set
  exc.attr("kernel") = e.kernel();
  exc.attr("line") = e.line();
  exc.attr("column") = e.column();
  exc.attr("message") = e.message();
  exc.attr("file") = e.file().empty() ? nb::none() : nb::cast(e.file());
  PyErr_SetObject(compile_error_type, exc.ptr());
}

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const CompileError& e) {
    try {
      set_compile_error(e);
    } catch (nb::python_error& pe) {
      pe.restore();
    }
  } catch (const TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const KeyError& e) {
    PyErr_SetString(PyExc_KeyError, e.what());
  } catch (const BufferError& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
  } catch (const AssertionError& e) {
    PyErr_SetString(PyExc_AssertionError, e.what());
  } catch (const RuntimeError& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const InternalError& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const Error& e) {
    // A class added to the hierarchy without a mapping here still reaches Python.
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace

void init_errors(nb::module_& m) {
  nb::dict body;
  body["__doc__"] =
      "A kernel outside Tack's language. Attributes: kernel (its name), line and column "
      "(1-based, of the offending construct), message (without the location and source), "
      "file (the Python file the line is in, for @tack.kernel and @tack.func; else None).";
  body["kernel"] = nb::none();
  body["line"] = nb::none();
  body["column"] = nb::none();
  body["message"] = nb::none();
  body["file"] = nb::none();
  compile_error_type = PyErr_NewException("tack.CompileError", PyExc_Exception, body.ptr());
  if (compile_error_type == nullptr) throw nb::python_error();
  m.attr("CompileError") = nb::borrow(compile_error_type);
  nb::register_exception_translator(translate);

  // For the test suite: raises the C++ error of `kind` through the translator.
  m.def(
      "_raise_for_test",
      [](const std::string& kind, const std::string& message) {
        if (kind == "type") throw TypeError(message);
        if (kind == "value") throw ValueError(message);
        if (kind == "index") throw IndexError(message);
        if (kind == "key") throw KeyError(message);
        if (kind == "buffer") throw BufferError(message);
        if (kind == "assertion") throw AssertionError(message);
        if (kind == "runtime") throw RuntimeError(message);
        if (kind == "internal") throw InternalError(message);
        if (kind == "compile")
          throw CompileError("saxpy", 3, 9, message, "    y[i] = a * x[i] + q");
        throw std::invalid_argument("unknown error kind " + kind);
      },
      nb::arg("kind"), nb::arg("message"));
}

}  // namespace tack::python
