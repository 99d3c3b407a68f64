/**
   * Wraps a callable.
   */  /* now */
  template<typename _Res>
    class move_only_function;
