module tb;
    reg         clk = 1'b0;
    reg         rst, clr, en;
    reg  [7:0]  a, b;
    wire [23:0] acc;
    reg  [23:0] m_acc;
    integer     sa, sb;
    integer errors, samples, cyc, seed;

    mac8 dut (.clk(clk), .rst(rst), .clr(clr), .en(en), .a(a), .b(b), .acc(acc));

    always #5 clk = ~clk;

    initial begin
        errors = 0; samples = 0; seed = 4242;
        rst = 1'b1; clr = 0; en = 0; a = 0; b = 0; m_acc = 24'bx;
        for (cyc = 0; cyc < 900; cyc = cyc + 1) begin
            @(posedge clk);
            sa = a[7] ? a - 256 : a;
            sb = b[7] ? b - 256 : b;
            if (rst || clr) m_acc = 24'd0;
            else if (en) m_acc = m_acc + sa * sb;
            @(negedge clk);
            rst = (cyc < 2) || (cyc == 700);
            clr = (cyc % 150 == 75);
            en = ($random(seed) % 5 != 0);
            a = $random(seed);
            b = $random(seed);
            if (cyc >= 300 && cyc < 500) begin a = 8'h80; b = 8'h80; end  // +16384 each: wraps 24 bits
            #1;
            samples = samples + 1;
            if (acc !== m_acc) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=acc expected=%h got=%h", $time, m_acc, acc);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
